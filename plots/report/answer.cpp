#include "plots/report/answer.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "plots/figures/headroom_lines.hpp"

namespace collreplay::plots {
namespace {

std::string count_text(double nodes) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", nodes);
  return text;
}

std::string ms_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, std::fabs(ms) < 10 ? "%+.2f ms" : "%+.0f ms", ms);
  return text;
}

// Where one series of points goes from >= 0 to < 0, in node counts that were run or projected
// (not interpolated: between two counts is what the points say).
std::string verdict(const std::vector<HeadroomPoint>& points) {
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].headroom_ms >= 0) continue;
    if (i == 0)
      return "negative from " + count_text(points[0].nodes) + " node(s) on (" +
             ms_text(points[0].headroom_ms) + " per layer there)";
    return "tips between " + count_text(points[i - 1].nodes) + " and " +
           count_text(points[i].nodes) + " nodes (" + ms_text(points[i - 1].headroom_ms) + " → " +
           ms_text(points[i].headroom_ms) + " per layer)";
  }
  return "stays positive up to " + count_text(points.back().nodes) + " nodes (" +
         ms_text(points.back().headroom_ms) + " per layer there)";
}

}  // namespace

std::string answer_markdown(const std::vector<Record>& records) {
  const std::map<std::string, ModelLines> lines = headroom_lines(records);
  if (lines.empty()) return "";
  std::set<std::string> sources;
  std::ostringstream md;
  md << "## The answer: where communication stops hiding behind compute\n\n"
     << "The tipping point is where the median decoder layer's overlap headroom (its compute "
        "minus the communication that must hide behind it) turns negative.\n\n";
  for (const std::string& model : model_order(lines)) {
    const ModelLines& model_lines = lines.at(model);
    md << "- **" << model << "**"
       << (model_lines.workload.empty() ? "" : " (" + model_lines.workload + ")") << ":";
    const char* separator = " ";
    for (const auto& [fabric, line] : model_lines.by_fabric) {
      md << separator << "on " << fabric << " ";
      if (!line.measured.empty() && line.measured.size() > 1)
        md << verdict(line.measured) << ", measured";
      if (!line.projected.empty()) {
        if (line.measured.size() > 1) md << "; projected: ";
        md << verdict(line.projected) << (line.measured.size() > 1 ? "" : ", projected");
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
