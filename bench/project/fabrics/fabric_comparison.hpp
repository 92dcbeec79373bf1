// "Do I need InfiniBand?" in one run: `--fabric a,b` projects the same step on each fabric, and
// this puts them side by side per node count with the ratio of their tokens/s (the later fabric
// over the first) and where each tips.
#pragma once
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/project/projection.hpp"

namespace collreplay::project {

// "ib-ndr-8x400,eth-100g" -> its names; UsageError on an empty name or a repeated one.
std::vector<std::string> split_fabrics(const std::string& text);

struct FabricProjection {
  std::string fabric;  // its label (the profile's name, or the fitted fabric's)
  std::vector<ProjectionRow> rows;
  std::optional<TippingPoint> tip;
};

// Rows of every fabric must be at the same node counts.
void print_fabric_comparison(const std::vector<FabricProjection>& fabrics, std::ostream& out);

// One record per node count: record "fabric_comparison", tokens/s per fabric and each later
// fabric's ratio to the first (null where a row does not fit).
std::vector<nlohmann::json> fabric_comparison_json(const std::vector<FabricProjection>& fabrics,
                                                   const std::string& model);

}  // namespace collreplay::project
