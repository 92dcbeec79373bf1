#include "plots/report/answer.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "plots/headroom_lines.hpp"
#include "records/fabric_answer.hpp"

namespace collreplay::plots {
namespace {

std::string ms_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, std::fabs(ms) < 10 ? "%+.2f ms" : "%+.0f ms", ms);
  return text;
}

using AnswerKey = std::tuple<std::string, std::string, std::string>;  // model, fabric A, fabric B

// The fabric answers per model and fabric pair, one per node count (a later record of the same
// node count replaces an earlier one: project and advise over the same folder agree).
std::map<AnswerKey, std::map<int, records::FabricAnswer>> answers_of(
    const std::vector<Record>& records) {
  std::map<AnswerKey, std::map<int, records::FabricAnswer>> out;
  for (const Record* r : of_kind(records, "fabric_comparison"))
    if (auto a = records::answer_of(r->data))
      out[{a->model, a->fabric_a, a->fabric_b}][a->nodes] = *a;
  return out;
}

// What the line says of one fabric: the measured runs' verdict, the projection's tipping point.
std::string fabric_verdict(const HeadroomLine& line) {
  if (line.measured.size() == 1 && line.projected.empty())
    return "measured at " + std::to_string(static_cast<int>(line.measured.front().nodes)) +
           " node(s) only: " + ms_text(line.measured.front().headroom_ms) + " per layer";
  std::string text;
  if (line.measured.size() > 1) text = "measured, " + tipping_words(line.measured);
  if (!line.projected.empty())
    text += (text.empty() ? "projected, " : "; projected, ") + projected_tipping_words(line);
  if (const std::string scaling = scaling_words(line); !scaling.empty()) text += "; " + scaling;
  return text;
}

// Per fabric, where it tips; and the layout's own cost where collectives inside a node show.
void tipping_lines(std::ostream& md, const ModelLines& lines, std::set<std::string>& sources) {
  for (const auto& [fabric, line] : lines.by_fabric) {
    md << "- on " << fabric << ": " << fabric_verdict(line) << "\n";
    if (!line.fabric_source.empty() && line.fabric_source != "profile")
      sources.insert(fabric + " from " +
                     line.fabric_source.substr(line.fabric_source.find(':') + 1));
  }
}

// The projection's own words on the layout's own cost (bench/project/tipping/), "" without.
std::string layout_cost(const std::vector<Record>& records, const std::string& model) {
  for (const Record* r : of_kind(records, "projection"))
    if (text_at(r->data, "model").value_or("") == model)
      if (auto words = text_at(r->data, "layout_cost"); words && !words->empty()) return *words;
  return "";
}

}  // namespace

std::string answer_markdown(const std::vector<Record>& records) {
  const std::map<std::string, ModelLines> lines = headroom_lines(records);
  const auto answers = answers_of(records);
  if (lines.empty() && answers.empty()) return "";
  std::set<std::string> sources;
  std::ostringstream md;
  md << "## The answer: does the model need the fast fabric?\n\n"
     << "Each table: the second fabric's whole-job tokens/s as a fraction of the first's, each at "
        "its best layout that fits in GPU memory (both named), with its interval, and like for "
        "like (the first fabric's best layout run on both). Below it, where each fabric tips for "
        "the projected layout: the first node count where the median decoder layer's "
        "communication across nodes outlasts its compute, or collectives across nodes on the "
        "critical path expose more than 1% of the step; a range where the headroom's band "
        "straddles zero.\n\n";
  std::set<std::string> answered;
  for (const auto& [key, by_nodes] : answers) {
    const std::string& model = std::get<0>(key);
    std::vector<records::FabricAnswer> rows;
    for (const auto& [nodes, a] : by_nodes) rows.push_back(a);
    md << "### " << model << "\n\n" << records::answer_table_markdown(rows);
    if (answered.insert(model).second && lines.count(model)) {
      md << "Where each fabric tips (projected layout: " << lines.at(model).workload
         << (lines.at(model).compute.empty() ? "" : ", compute " + lines.at(model).compute)
         << "):\n\n";
      tipping_lines(md, lines.at(model), sources);
      if (const std::string cost = layout_cost(records, model); !cost.empty())
        md << "- " << cost << "\n";
      md << "\n";
    }
  }
  // Models measured (or projected) without a fabric answer: where each of their fabrics tips.
  for (const std::string& model : model_order(lines)) {
    if (answered.count(model)) continue;
    const ModelLines& model_lines = lines.at(model);
    md << "### " << model
       << (model_lines.workload.empty() ? "" : " (" + model_lines.workload + ")") << "\n\n";
    tipping_lines(md, model_lines, sources);
    md << "\n";
  }
  if (!sources.empty()) {
    md << "Projected fabrics fitted to this folder's own measured runs (";
    const char* separator = "";
    for (const std::string& s : sources) {
      md << separator << s;
      separator = ", ";
    }
    md << "), not nominal profiles; projections are not measurements.\n\n";
  }
  return md.str();
}

}  // namespace collreplay::plots
