#include "bench/project/tipping/tipping_point.hpp"

#include <cmath>
#include <cstdio>

namespace collreplay::project {
namespace {

std::string ms_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, std::fabs(ms) < 10 ? "%.2f ms" : "%.1f ms", ms);
  return text;
}

std::string nodes_text(int nodes) {
  return std::to_string(nodes) + (nodes == 1 ? " node" : " nodes");
}

// Only rows whose network matters: more than one node (the fabric is in the step) and a step that
// fits (a step too big never runs).
bool judged(const ProjectionRow& r) { return r.nodes > 1 && r.world > 1 && r.fits; }

bool critical_tips(const ProjectionRow& r) {
  return r.step_ms > 0 && r.critical_fabric_exposed_ms > kCriticalExposedFraction * r.step_ms;
}

// Why row r tips at this end of the headroom's band (lo, nominal or hi), or "" when it does not.
std::string why(const ProjectionRow& r, double headroom_ms) {
  if (r.median_layer >= 0 && r.median_layer_crosses_nodes && headroom_ms < 0)
    return "the median decoder layer's headroom is " + ms_text(r.headroom_ms) + " [" +
           ms_text(r.headroom_lo_ms) + ", " + ms_text(r.headroom_hi_ms) +
           "] (its communication across nodes outlasts its compute)";
  if (critical_tips(r))
    return "collectives across nodes on the critical path (nothing to hide behind) expose " +
           ms_text(r.critical_fabric_exposed_ms) + " of a " + ms_text(r.step_ms) + " step";
  return "";
}

}  // namespace

std::optional<TippingPoint> tipping_point(const std::vector<ProjectionRow>& rows) {
  std::optional<TippingPoint> tip;
  for (const ProjectionRow& r : rows) {
    if (!judged(r)) continue;
    const std::string may = why(r, r.headroom_lo_ms);
    if (may.empty()) continue;
    if (!tip) tip = TippingPoint{r.nodes, std::nullopt, std::nullopt, may};
    const std::string nominal = why(r, r.headroom_ms);
    if (!tip->nodes && !nominal.empty()) {
      tip->nodes = r.nodes;
      tip->reason = nominal;
    }
    if (!tip->to_nodes && !why(r, r.headroom_hi_ms).empty()) tip->to_nodes = r.nodes;
  }
  return tip;
}

std::string tipping_text(const std::optional<TippingPoint>& tip) {
  if (!tip)
    return "none in range (at every node count with more than one node, the layers' "
           "communication across nodes hides behind their compute, even at the band's low end, "
           "and nothing across nodes on the critical path is exposed)";
  if (tip->firm()) return nodes_text(*tip->nodes) + ": " + tip->reason;
  std::string text = tip->to_nodes ? "between " + std::to_string(tip->from_nodes) + " and " +
                                         nodes_text(*tip->to_nodes)
                                   : "from " + nodes_text(tip->from_nodes) +
                                         " at the band's low end, not past its high end in range";
  text += " (the headroom's band straddles zero";
  text += tip->nodes ? "; nominal " + std::to_string(*tip->nodes) + ")" : "; nominal: none)";
  return text + ": " + tip->reason;
}

nlohmann::json tipping_json(const std::optional<TippingPoint>& tip) {
  const auto or_null = [](const std::optional<int>& n) {
    return n ? nlohmann::json(*n) : nlohmann::json();
  };
  return {{"tipping_point_nodes", tip ? or_null(tip->nodes) : nlohmann::json()},
          {"tipping_from_nodes", tip ? nlohmann::json(tip->from_nodes) : nlohmann::json()},
          {"tipping_to_nodes", tip ? or_null(tip->to_nodes) : nlohmann::json()},
          {"tipping_point", tipping_text(tip)}};
}

std::string layout_cost_text(const std::vector<ProjectionRow>& rows) {
  // Where collectives across nodes are apart from those inside (more than one node), else what
  // there is.
  const ProjectionRow* at = nullptr;
  for (const ProjectionRow& r : rows)
    if (r.fits && r.step_ms > 0 && (!at || (at->nodes == 1 && r.nodes > 1))) at = &r;
  if (!at || at->layout_exposed_ms < 0.001 * at->step_ms) return "";
  return "the layout's own cost: collectives that stay inside a node (such as tensor or expert "
         "parallelism over NVLink) expose " + ms_text(at->layout_exposed_ms) + " of a " +
         ms_text(at->step_ms) + " step at " + nodes_text(at->nodes) +
         ", on every fabric alike (not a tipping point)";
}

}  // namespace collreplay::project
