// Where a fabric stops hiding the step's communication. Only exposure the fabric causes counts:
// collectives that cross nodes. What stays inside a node (expert or tensor parallelism over
// NVLink) is the layout's own cost, the same on every fabric, and is stated once beside the
// projection (layout_cost_text), never as a tipping point. A node count is "tipped" when the
// median decoder layer's collectives cross nodes and its headroom is negative, or when collectives
// on the critical path that cross nodes expose more than kCriticalExposedFraction of the step.
// The headroom's band (the comm-time band of the fit) makes it a range: from the first node count
// where the band's low end is negative (it may tip there) to the first where its high end is (it
// has tipped).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/project/projection.hpp"

namespace collreplay::project {

inline constexpr double kCriticalExposedFraction = 0.01;

struct TippingPoint {
  int from_nodes = 0;              // the first node count where it may tip (the band's low end)
  std::optional<int> nodes;        // where the nominal projection tips, if in range
  std::optional<int> to_nodes;     // the first where even the band's high end tips, if in range
  std::string reason;              // why, with the number, at `nodes` (else at from_nodes)

  // A single node count when the band does not straddle zero there.
  bool firm() const { return nodes && to_nodes && from_nodes == *to_nodes; }
};

std::optional<TippingPoint> tipping_point(const std::vector<ProjectionRow>& rows);

// "32 nodes: ...", "between 16 and 64 nodes (the headroom's band straddles zero): ...", "from 16
// nodes (...), not past the band's high end in range", "none in range (...)".
std::string tipping_text(const std::optional<TippingPoint>& tip);
// tipping_point_nodes (nominal), tipping_from_nodes, tipping_to_nodes and tipping_point (words).
nlohmann::json tipping_json(const std::optional<TippingPoint>& tip);

// "the layout's own cost: collectives that stay inside a node ... expose 12.3 ms of a 480 ms step at
// 2 nodes, on every fabric alike"; "" when they expose nothing (under 0.1% of the step). Read at the
// first node count past one that fits (at one node every collective stays inside it).
std::string layout_cost_text(const std::vector<ProjectionRow>& rows);

}  // namespace collreplay::project
