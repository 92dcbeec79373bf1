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
#include "plots/report/step_table.hpp"

namespace collreplay::plots {
namespace {

namespace fs = std::filesystem;

std::string fixed(double value, int decimals = 2) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string optional_fixed(const nlohmann::json& r, const std::string& path, int decimals = 2) {
  const auto value = number_at(r, path);
  return value ? fixed(*value, decimals) : "-";
}

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
  std::set<std::string> curves;
  for (const Record* r : of_kind(records, "perf")) {
    const auto bytes = number_at(r->data, "bytes"), busbw = number_at(r->data, "busbw_GBps");
    const auto op = text_at(r->data, "op");
    if (!bytes || !busbw || !op) continue;
    const std::string curve = transport_of(r->data) + " " + *op + " " +
                              text_at(r->data, "placement").value_or("") + ", " +
                              std::to_string(nodes_of(r->data)) + "n";
    table[*bytes][curve].push_back(*busbw);
    curves.insert(curve);
  }
  if (table.empty()) return;
  md << "## Bus bandwidth per message size (GB/s, median of repetitions)\n\n| bytes |";
  for (const std::string& c : curves) md << " " << c << " |";
  md << "\n|--:|";
  for (std::size_t i = 0; i < curves.size(); ++i) md << "--:|";
  md << "\n";
  for (const auto& [bytes, row] : table) {
    md << "| " << fixed(bytes, 0) << " |";
    for (const std::string& c : curves) {
      const auto it = row.find(c);
      md << " " << (it == row.end() ? "-" : fixed(median_of(it->second))) << " |";
    }
    md << "\n";
  }
  md << "\n";
}

std::string run_label(const nlohmann::json& r, const ModelIndex& models) {
  return model_of(r, models) + " on " + fabric_of(r) + ", " + std::to_string(nodes_of(r)) +
         " node(s)";
}

void headroom_tables(std::ostream& md, const std::vector<Record>& records,
                     const ModelIndex& models) {
  std::map<std::string, std::vector<const Record*>> by_run;
  for (const Record* r : of_kind(records, "unit"))
    by_run[run_label(r->data, models) + "\n" + run_key(r->data)].push_back(r);
  if (by_run.empty()) return;
  md << "## Overlap headroom per unit (ms; > 0: the unit's communication hides behind its "
        "compute)\n\n"
     << "| run | decoder layers: median | min | max | root |\n|---|--:|--:|--:|--:|\n";
  for (const auto& [key, units] : by_run) {
    std::vector<double> layers;
    std::string root = "-";
    for (const Record* u : units) {
      const auto h = number_at(u->data, "headroom_ms");
      const std::string unit = text_at(u->data, "unit").value_or("");
      if (!h) continue;
      if (is_decoder_layer(unit)) layers.push_back(*h);
      if (unit == "root") root = fixed(*h);
    }
    std::sort(layers.begin(), layers.end());
    md << "| " << key.substr(0, key.find('\n')) << " | "
       << (layers.empty() ? "-" : fixed(median_of(layers))) << " | "
       << (layers.empty() ? "-" : fixed(layers.front())) << " | "
       << (layers.empty() ? "-" : fixed(layers.back())) << " | " << root << " |\n";
  }
  md << "\n";
  for (const auto& [key, units] : by_run) {
    md << "<details><summary>every unit: " << key.substr(0, key.find('\n')) << "</summary>\n\n"
       << "| unit | compute_ms | comm_ms | headroom_ms | headroom_ratio |\n|---|--:|--:|--:|--:|\n";
    for (const Record* u : units)
      md << "| " << text_at(u->data, "unit").value_or("?") << " | "
         << optional_fixed(u->data, "compute_ms") << " | " << optional_fixed(u->data, "comm_ms")
         << " | " << optional_fixed(u->data, "headroom_ms") << " | "
         << optional_fixed(u->data, "headroom_ratio", 3) << " |\n";
    md << "\n</details>\n\n";
  }
}

void projection_table(std::ostream& md, const std::vector<Record>& records) {
  const auto projections = of_kind(records, "projection");
  if (projections.empty()) return;
  md << "## Projection (not measured: the fitted cost model)\n\n"
     << "| model | fabric | nodes | headroom_ms | band | tipping point (nodes) "
        "|\n|---|---|--:|--:|--:|--:|\n";
  for (const Record* p : projections) {
    const nlohmann::json& r = p->data;
    md << "| " << text_at(r, "model").value_or("?") << " | " << fabric_of(r) << " | " << nodes_of(r)
       << " | " << optional_fixed(r, "headroom_ms") << " | " << optional_fixed(r, "headroom_lo_ms")
       << " .. " << optional_fixed(r, "headroom_hi_ms") << " | "
       << optional_fixed(r, "tipping_point_nodes", 1) << " |\n";
  }
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
  const ModelIndex models = index_models(records);
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
  step_table(md, records);
  headroom_tables(md, records, models);
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
