// What `project` prints and writes: the fit, the projection per node count, the validation.
// Tables go to a stream; records are JSON objects for the results file (record "fit",
// "projection", "validation", "validation_summary").
#pragma once
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/project/model/fit.hpp"
#include "bench/project/projection.hpp"
#include "bench/project/tipping/tipping_point.hpp"
#include "bench/project/validate.hpp"

namespace collreplay::project {

struct ProjectionLabels {
  std::string model, fabric, compute, intra;  // what the user asked for, in words
  // Where the inter-node tier came from: "profile" (fabrics.tsv) or "fit:RESULTS_DIR". A fit of
  // runs that name their fabric is labelled by that name, so its projection continues the same
  // fabric's measured points in a figure.
  std::string fabric_source = "profile";
  int ep = 1;
  std::int64_t micro_batch = 1, seq = 0;  // the projected workload, for readers of the record
  int gpus_per_node = 8;
  std::string memory;  // what memory per GPU is checked against, in words ("" when not checked)
  std::string interval;  // where the per-GPU intervals come from, in words ("" when not set)
};

// printf of one number, as a string ("%.3g", 1.5 -> "1.5").
std::string format_value(const char* format, double value);

nlohmann::json tier_json(const TierParams& tier);
nlohmann::json fit_json(const FitReport& fit, const std::string& source);
void print_fit(const FitReport& fit, const std::string& source, std::ostream& out);

nlohmann::json projection_json(const ProjectionRow& row, const ProjectionLabels& labels,
                               const std::optional<TippingPoint>& tipping_point);
void print_projection(const std::vector<ProjectionRow>& rows, const ProjectionLabels& labels,
                      const std::optional<TippingPoint>& tipping_point, std::ostream& out);

std::vector<nlohmann::json> validation_json(const ValidationReport& report,
                                            const std::string& source);
void print_validation(const ValidationReport& report, std::ostream& out);

}  // namespace collreplay::project
