// `report`: one results folder as one Markdown file to share: the environment (from run
// metadata), the tables (bus bandwidth per size, headroom per unit, step summary, projections),
// the figures embedded, and the exact commands that reproduce the results.
#pragma once
#include <string>
#include <vector>

#include "plots/plot_records.hpp"

namespace collreplay::plots {

struct ReportRequest {
  std::vector<std::string> inputs;  // as given on the command line
  std::string out_dir;              // report.md and the figures go here
  std::string name = "report.md";
  bool draw_figures = true;  // false: embed the PNGs already in out_dir
};

// The Markdown text; `figures` are the PNG file names (relative to out_dir) to embed with
// their titles, `skipped` the figures not drawn and why.
struct FigureNote {
  std::string title, png, why_not;
};
std::string report_markdown(const std::vector<Record>& records, const ReportRequest& request,
                            const std::vector<FigureNote>& figures);

// Draws every figure the records allow (or finds their PNGs), writes report.md atomically
// (temporary file, then rename) and returns its path.
std::string write_report(const std::vector<Record>& records, const ReportRequest& request);

}  // namespace collreplay::plots
