#include "plots/report.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/errors.hpp"
#include "plots/figures.hpp"
#include "plots/report/answer.hpp"
#include "plots/quantities.hpp"
#include "plots/report/markdown_numbers.hpp"
#include "plots/report/step_table.hpp"

namespace collreplay::plots {
namespace {

namespace fs = std::filesystem;

std::string joined(const std::set<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : ", ") + v;
  return out.empty() ? "-" : out;
}

// A shell word: quoted only when it needs to be.
std::string shell_word(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789-_./=:,@%+") == std::string::npos)
    return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string text_of(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    std::set<std::string> items;
    for (const auto& item : value) items.insert(text_of(item));
    return joined(items);
  }
  if (value.is_object()) {
    std::string out;
    for (const auto& [key, item] : value.items())
      out += (out.empty() ? "" : ", ") + key + " " + text_of(item);
    return out;
  }
  return value.dump();
}

void environment(std::ostream& md, const std::vector<Record>& records) {
  const char* fields[][2] = {{"hosts", "hosts"},
                             {"nodes", "nodes"},
                             {"ranks", "ranks"},
                             {"ranks_per_node", "ranks per node"},
                             {"devices", "devices (GPUs)"},
                             {"backend", "backend"},
                             {"library_versions", "libraries"},
                             {"transport_asked", "transport asked"},
                             {"transport_verified", "transport verified"},
                             {"fabric", "fabric"},
                             {"emulated", "emulated"},
                             {"dilation", "dilation"},
                             {"nccl_algo", "NCCL algorithm"},
                             {"git_revision", "git revision"},
                             {"timestamp", "run started (UTC)"}};
  std::map<std::string, std::set<std::string>> seen;
  std::map<std::string, std::set<std::string>> runs_with;  // field -> runs that recorded it
  std::set<std::string> runs;
  for (const Record& r : records) {
    if (!r.data.contains("run") || !r.data["run"].is_object()) continue;
    const std::string key = run_key(r.data);
    runs.insert(key);
    for (const auto& field : fields) {
      if (!r.data["run"].contains(field[0])) continue;
      runs_with[field[0]].insert(key);
      const nlohmann::json& value = r.data["run"][field[0]];
      if (value.is_array())  // one entry per host or device: list each once
        for (const auto& item : value) seen[field[0]].insert(text_of(item));
      else
        seen[field[0]].insert(text_of(value));
    }
  }
  md << "## Environment\n\n"
     << runs.size() << " run(s). Values that differ between runs are listed together.\n\n"
     << "| | |\n|---|---|\n";
  for (const auto& field : fields) {
    const std::set<std::string>& values = seen[field[0]];
    std::string text = values.empty() ? "- (not recorded)" : joined(values);
    if (std::string(field[0]) == "timestamp" && values.size() > 2)
      text = *values.begin() + " .. " + *values.rbegin();
    const std::size_t missing = runs.size() - runs_with[field[0]].size();
    if (!values.empty() && missing > 0)
      text += " (not recorded by " + std::to_string(missing) + " run(s))";
    md << "| " << field[1] << " | " << text << " |\n";
  }
  md << "\n";
}

void busbw_table(std::ostream& md, const std::vector<Record>& records) {
  std::map<double, std::map<std::string, std::vector<double>>> table;  // bytes -> curve -> busbw
  std::set<std::pair<double, std::string>> above;  // cells with a point above the line rate
  std::set<std::string> curves;
  for (const Record* r : of_kind(records, "perf")) {
    const auto bytes = number_at(r->data, "bytes"), busbw = number_at(r->data, "busbw_GBps");
    const auto op = text_at(r->data, "op");
    if (!bytes || !busbw || !op) continue;
    const std::string curve = busbw_curve(r->data);  // one fabric and transport a column
    if (r->data.value("above_line_rate", false)) above.insert({*bytes, curve});
    table[*bytes][curve].push_back(*busbw);
    curves.insert(curve);
  }
  if (table.empty()) return;
  md << "## Bus bandwidth per message size (GB/s, median of repetitions)\n\nA column is one "
        "fabric (over its verified transport), op, placement and node count.\n\n| bytes |";
  for (const std::string& c : curves) md << " " << c << " |";
  md << "\n|--:|";
  for (std::size_t i = 0; i < curves.size(); ++i) md << "--:|";
  md << "\n";
  for (const auto& [bytes, row] : table) {
    md << "| " << fixed(bytes, 0) << " |";
    for (const std::string& c : curves) {
      const auto it = row.find(c);
      md << " " << (it == row.end() ? "-" : fixed(median_of(it->second)))
         << (above.count({bytes, c}) ? " !" : "") << " |";
    }
    md << "\n";
  }
  md << "\n";
  if (!above.empty())
    md << "! a point above its emulated fabric's line rate (the node links cannot carry it: a "
          "shaper's burst passed it unshaped); the records say `above_line_rate` and the bound.\n\n";
}

void headroom_tables(std::ostream& md, const std::vector<Record>& records) {
  const std::vector<RunLayers> runs = run_layers(records);
  if (runs.empty()) return;
  md << "## Overlap headroom per decoder layer (ms; > 0: the layer's communication hides behind "
        "its compute)\n\n"
     << "comm is what each layer's compute must hide (the communication the transports figure "
        "draws); the median is the point the headroom figure draws.\n\n"
     << "| run | layers | headroom: median | min | max | comm: median | root headroom "
        "|\n|---|--:|--:|--:|--:|--:|--:|\n";
  const auto label = [](const RunLayers& r) { return r.model + " on " + fabric_nodes_label(r); };
  for (const RunLayers& r : runs) {
    std::vector<double> headroom, comm;
    for (const auto& [layer, ms] : r.headroom_ms) headroom.push_back(ms);
    for (const auto& [layer, ms] : r.comm_ms) comm.push_back(ms);
    const auto [lo, hi] = std::minmax_element(headroom.begin(), headroom.end());
    md << "| " << label(r) << " | " << headroom.size() << " | "
       << (headroom.empty() ? "-" : fixed(median_layer_headroom_ms(r))) << " | "
       << (headroom.empty() ? "-" : fixed(*lo)) << " | " << (headroom.empty() ? "-" : fixed(*hi))
       << " | " << (comm.empty() ? "-" : fixed(median_of(comm))) << " | "
       << (r.root_headroom_ms ? fixed(*r.root_headroom_ms) : "-") << " |\n";
  }
  md << "\n";
  for (const RunLayers& r : runs) {
    md << "<details><summary>every layer: " << label(r) << "</summary>\n\n"
       << "| layer | compute_ms | comm_ms | headroom_ms |\n|--:|--:|--:|--:|\n";
    for (const auto& [layer, ms] : r.headroom_ms)
      md << "| " << layer << " | " << fixed(r.compute_ms.at(layer)) << " | "
         << fixed(r.comm_ms.at(layer)) << " | " << fixed(ms) << " |\n";
    md << "\n</details>\n\n";
  }
}

// "[lo, hi]" of a field's _lo and _hi, "-" without them.
std::string interval_cell(const nlohmann::json& r, const std::string& field, int decimals) {
  const auto lo = number_at(r, field + "_lo"), hi = number_at(r, field + "_hi");
  return lo && hi ? "[" + fixed(*lo, decimals) + ", " + fixed(*hi, decimals) + "]" : "-";
}

void projection_table(std::ostream& md, const std::vector<Record>& records) {
  const auto projections = of_kind(records, "projection");
  if (projections.empty()) return;
  md << "## Projection (not measured: the cost model over each fabric)\n\n"
     << "Per GPU: tokens/s per GPU with its interval, and against the projection's first node "
        "count (bench/project/interval/: the width from the published fixtures' declared rows, "
        "growing with the doublings extrapolated).\n\n"
     << "| model | fabric | nodes | headroom_ms | band | tokens/s per GPU | interval | vs first "
        "| interval | step_ms | exposed_ms |\n|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  std::map<std::pair<std::string, std::string>, std::string> tipping;
  for (const Record* p : projections) {
    const nlohmann::json& r = p->data;
    const std::string model = text_at(r, "model").value_or("?");
    md << "| " << model << " | " << fabric_of(r) << " | " << nodes_of(r) << " | "
       << optional_fixed(r, "headroom_ms") << " | " << optional_fixed(r, "headroom_lo_ms")
       << " .. " << optional_fixed(r, "headroom_hi_ms") << " | "
       << (r.value("fits", true) ? optional_fixed(r, "tokens_per_s_per_gpu", 0) : "no fit")
       << " | " << interval_cell(r, "tokens_per_s_per_gpu", 0) << " | "
       << optional_fixed(r, "per_gpu_vs_first", 3) << " | "
       << interval_cell(r, "per_gpu_vs_first", 3) << " | " << optional_fixed(r, "step_ms", 1)
       << " | "
       << optional_fixed(r, "exposed_comm_ms", 1) << " |\n";
    if (auto words = text_at(r, "tipping_point")) tipping[{model, fabric_of(r)}] = *words;
  }
  md << "\n";
  for (const auto& [key, words] : tipping)
    md << "- " << key.first << " on " << key.second << " tips: " << words << "\n";
  md << "\n";
}

// What runs said went wrong or looks impossible, carried here so a reader of the report sees it:
// a replay whose passes do not add up (step records' sanity_problems).
void warnings(std::ostream& md, const std::vector<Record>& records) {
  std::vector<std::string> lines;
  const ModelIndex models = index_models(records);
  for (const Record* r : of_kind(records, "step")) {
    const nlohmann::json* problems = records::field_at(r->data, "sanity_problems");
    if (!problems || !problems->is_array()) continue;
    for (const auto& problem : *problems)
      if (problem.is_string())
        lines.push_back(model_of(r->data, models) + " on " + fabric_of(r->data) + ", " +
                        std::to_string(nodes_of(r->data)) + " node(s) (" + r->where() +
                        "): " + problem.get<std::string>());
  }
  if (lines.empty()) return;
  md << "## Warnings from the runs\n\n";
  for (const std::string& line : lines) md << "- " << line << "\n";
  md << "\n";
}

void commands(std::ostream& md, const std::vector<Record>& records, const ReportRequest& request) {
  std::vector<std::string> lines;
  std::set<std::string> seen;
  for (const Record& r : records) {
    const nlohmann::json* line = r.data.contains("run") && r.data["run"].contains("command_line")
                                     ? &r.data["run"]["command_line"]
                                     : nullptr;
    if (!line || !line->is_array()) continue;
    std::string text;
    for (const auto& word : *line)
      if (word.is_string()) text += (text.empty() ? "" : " ") + shell_word(word.get<std::string>());
    if (!seen.insert(text).second) continue;
    // The launcher (mpirun, srun, the emulated cluster) is not part of the command line: say
    // how many ranks on how many nodes it ran with.
    const auto ranks = number_at(r.data, "run/ranks");
    lines.push_back("# " + (ranks ? fixed(*ranks, 0) : std::string("?")) + " rank(s) on " +
                    std::to_string(nodes_of(r.data)) + " node(s), " + fabric_of(r.data) + "\n" +
                    text);
  }
  md << "## Reproduce\n\nThe runs, as they were started (from each record's `run.command_line`; "
        "launch each under mpirun or srun with the ranks and nodes noted), then this "
        "report:\n\n```sh\n";
  for (const std::string& line : lines) md << line << "\n";
  md << "build/bin/report";
  for (const std::string& input : request.inputs) md << " " << shell_word(input);
  md << " --out " << shell_word(request.out_dir) << "\n```\n";
}

}  // namespace

std::string report_markdown(const std::vector<Record>& records, const ReportRequest& request,
                            const std::vector<FigureNote>& figures) {
  std::ostringstream md;
  std::set<std::string> files;
  for (const Record& r : records) files.insert(r.file);
  md << "# collreplay results\n\n"
     << records.size() << " records from " << files.size() << " file(s) under "
     << joined(std::set<std::string>(request.inputs.begin(), request.inputs.end())) << ".\n\n"
     << answer_markdown(records);
  environment(md, records);
  md << "## Figures\n\n";
  for (const FigureNote& f : figures) {
    if (f.png.empty())
      md << "- " << f.title << ": not drawn (" << f.why_not << ")\n";
    else
      md << "### " << f.title << "\n\n![" << f.title << "](" << f.png << ")\n\n";
  }
  md << "\n";
  warnings(md, records);
  step_table(md, records);
  headroom_tables(md, records);
  projection_table(md, records);
  busbw_table(md, records);
  commands(md, records, request);
  return md.str();
}

std::string write_report(const std::vector<Record>& records, const ReportRequest& request) {
  fs::create_directories(request.out_dir);
  std::vector<FigureNote> figures;
  // Without gnuplot the report is still written, in text, each figure naming why it is missing.
  std::string cannot_draw;
  if (request.draw_figures) {
    try {
      require_gnuplot();
    } catch (const RuntimeError& e) {
      cannot_draw = e.what();
    }
  }
  for (const FigureEntry& entry : all_figures()) {
    FigureNote note{entry.title, "", ""};
    if (!cannot_draw.empty()) {
      note.why_not = cannot_draw;
    } else if (request.draw_figures) {
      try {
        const FigureFiles files = entry.draw(records, {request.out_dir, entry.name});
        note.png = fs::path(files.png).filename().string();
      } catch (const UsageError& e) {
        note.why_not = e.what();
      }
    } else if (fs::exists(fs::path(request.out_dir) / (std::string(entry.name) + ".png"))) {
      note.png = std::string(entry.name) + ".png";
    } else {
      note.why_not = "no " + std::string(entry.name) + ".png in " + request.out_dir;
    }
    figures.push_back(note);
  }
  const fs::path target = fs::path(request.out_dir) / request.name;
  const fs::path partial = target.string() + ".partial";
  {
    std::ofstream out(partial);
    out << report_markdown(records, request, figures);
    if (!out.flush()) throw RuntimeError("cannot write " + partial.string());
  }
  fs::rename(partial, target);
  return target.string();
}

}  // namespace collreplay::plots
