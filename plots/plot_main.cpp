#include "plots/plot_main.hpp"

#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "common/errors.hpp"
#include "plots/report.hpp"

namespace collreplay::plots {

namespace fs = std::filesystem;

int guarded(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return kExitRuntime;
  }
}

std::string default_out_dir(const std::vector<std::string>& inputs) {
  if (inputs.empty()) return ".";
  const fs::path first(inputs.front());
  if (fs::is_directory(first)) return first.string();
  return first.has_parent_path() ? first.parent_path().string() : ".";
}

std::vector<Record> read_or_fail(const std::vector<std::string>& inputs) {
  std::vector<Record> records = read_results(inputs, std::cerr);
  if (records.empty()) {
    std::string where;
    for (const std::string& input : inputs) where += (where.empty() ? "" : " ") + input;
    throw UsageError("no result records in " + where + " (JSON Lines files, *.jsonl)");
  }
  return records;
}

int figure_main(int argc, char** argv, const std::string& figure, FigureFn draw) {
  return guarded(figure, [&]() -> int {
    CLI::App app("Draws the " + figure + " figure (PNG and SVG) from collreplay results.");
    std::vector<std::string> inputs;
    FigureRequest request;
    request.name = figure;
    app.add_option("results", inputs, "result files (*.jsonl) or folders of them (recursive)")
        ->required();
    app.add_option("--out", request.out_dir,
                   "folder for the PNG and SVG (default: the results folder)");
    app.add_option("--name", request.name, "file name stem of the figure")->capture_default_str();
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == 0) return app.exit(e);  // --help
      throw UsageError(e.what());
    }
    require_gnuplot();
    if (request.out_dir.empty()) request.out_dir = default_out_dir(inputs);
    const std::vector<Record> records = read_or_fail(inputs);
    const FigureFiles files = draw(records, request);
    std::cout << files.png << "\n" << files.svg << "\n";
    return kExitOk;
  });
}

}  // namespace collreplay::plots

namespace collreplay::plots {

const std::vector<FigureEntry>& all_figures() {
  static const std::vector<FigureEntry> figures = {
      {"plot_headroom", "Overlap headroom vs node count", plot_headroom},
      {"plot_busbw", "Bus bandwidth vs message size", plot_busbw},
      {"plot_timeline", "One step's timeline", plot_timeline},
      {"plot_transports", "Per-layer communication time by transport", plot_transports},
      {"plot_ranks", "Step time per rank (stragglers)", plot_ranks},
      {"plot_counters", "Counters over the run", plot_counters},
  };
  return figures;
}

int report_main(int argc, char** argv) {
  return guarded("report", [&]() -> int {
    CLI::App app(
        "Writes report.md from collreplay results: environment, tables, figures, and the "
        "commands that reproduce them.");
    ReportRequest request;
    bool embed_only = false;
    app.add_option("results", request.inputs, "result files (*.jsonl) or folders of them")
        ->required();
    app.add_option("--out", request.out_dir,
                   "folder for report.md and its figures (default: the results folder)");
    app.add_option("--name", request.name, "file name of the report")->capture_default_str();
    app.add_flag("--embed-existing", embed_only,
                 "do not draw: embed the figure PNGs already in the output folder");
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == 0) return app.exit(e);
      throw UsageError(e.what());
    }
    request.draw_figures = !embed_only;
    if (request.out_dir.empty()) request.out_dir = default_out_dir(request.inputs);
    const auto records = read_or_fail(request.inputs);
    std::cout << write_report(records, request) << "\n";
    return kExitOk;
  });
}

}  // namespace collreplay::plots
