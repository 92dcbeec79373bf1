// report: turns a results folder into report.md (environment, tables, figures, commands).
#include <iostream>

#include <CLI/CLI.hpp>

#include "common/errors.hpp"
#include "plots/plot_main.hpp"
#include "plots/report.hpp"

int main(int argc, char** argv) {
  using namespace collreplay::plots;
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
      throw collreplay::UsageError(e.what());
    }
    request.draw_figures = !embed_only;
    if (request.out_dir.empty()) request.out_dir = default_out_dir(request.inputs);
    const auto records = read_or_fail(request.inputs);
    std::cout << write_report(records, request) << "\n";
    return collreplay::kExitOk;
  });
}
