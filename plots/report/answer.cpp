#include "plots/report/answer.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "plots/headroom_lines.hpp"

namespace collreplay::plots {
namespace {

std::string ms_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, std::fabs(ms) < 10 ? "%+.2f ms" : "%+.0f ms", ms);
  return text;
}

// The words of tipping_words with the headroom either side of the crossing (or at the far end).
std::string verdict(const std::vector<HeadroomPoint>& points) {
  const std::optional<TippingInterval> tip = tipping_interval(points);
  std::string values;
  for (const HeadroomPoint& p : points)
    if (tip ? p.nodes == tip->before_nodes || p.nodes == tip->after_nodes
            : p.nodes == points.back().nodes)
      values += (values.empty() ? "" : " → ") + ms_text(p.headroom_ms);
  return tipping_words(points) + " (" + values + " per layer)";
}

}  // namespace

std::string answer_markdown(const std::vector<Record>& records) {
  const std::map<std::string, ModelLines> lines = headroom_lines(records);
  if (lines.empty()) return "";
  std::set<std::string> sources;
  std::ostringstream md;
  md << "## The answer: where communication stops hiding behind compute\n\n"
     << "The tipping point is the first node count (more than one rank) where the median decoder "
        "layer's overlap headroom (its compute minus the communication that must hide behind "
        "it) turns negative, or where collectives on the critical path (tensor parallel, MoE "
        "all-to-all) expose more than 1% of the step.\n\n";
  // The models only projected (the mission's, in the demo) first; then those measured here.
  std::vector<std::string> order;
  for (bool measured : {false, true})
    for (const std::string& model : model_order(lines)) {
      bool any = false;
      for (const auto& [fabric, line] : lines.at(model).by_fabric) any |= !line.measured.empty();
      if (any == measured) order.push_back(model);
    }
  for (const std::string& model : order) {
    const ModelLines& model_lines = lines.at(model);
    md << "- **" << model << "**"
       << (model_lines.workload.empty()
               ? ""
               : " (" + model_lines.workload +
                     (model_lines.compute.empty() ? "" : ", compute " + model_lines.compute) + ")")
       << ":";
    const char* separator = " ";
    for (const auto& [fabric, line] : model_lines.by_fabric) {
      md << separator << "on " << fabric << " ";
      if (line.measured.size() > 1) {
        md << verdict(line.measured) << ", measured";
      } else if (line.measured.size() == 1 && line.projected.empty()) {
        // One node count tells where the headroom stands, not where it turns.
        char nodes[32];
        std::snprintf(nodes, sizeof nodes, "%g", line.measured.front().nodes);
        md << "measured at " << nodes << " node(s) only: "
           << ms_text(line.measured.front().headroom_ms) << " per layer";
      }
      if (!line.projected.empty()) {
        if (line.measured.size() > 1) md << "; projected: ";
        // The projection's own words: its tipping point counts critical-path exposure too.
        md << (line.projected_tipping.empty() ? verdict(line.projected)
                                              : "tips at " + line.projected_tipping)
           << (line.measured.size() > 1 ? "" : ", projected");
        if (!line.fabric_source.empty() && line.fabric_source != "profile")
          sources.insert(fabric + " from " +
                         line.fabric_source.substr(line.fabric_source.find(':') + 1));
      }
      separator = "; ";
    }
    md << ".\n";
  }
  if (!sources.empty()) {
    md << "\nProjected fabrics are the cost model fitted to this folder's own measured runs (";
    const char* separator = "";
    for (const std::string& s : sources) {
      md << separator << s;
      separator = ", ";
    }
    md << "), not nominal profiles; projections are not measurements (the Projection table "
          "below has every node count with its band).\n";
  }
  md << "\n";
  return md.str();
}

}  // namespace collreplay::plots
