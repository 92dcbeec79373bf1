// The mains of the plot programs. Every figure program's is figure_main: `plot_X
// RESULTS_DIR_OR_FILES... --out DIR --name NAME`; gnuplot missing: exit 1 before anything is
// read; no results, or none the figure can draw: exit 2 with one line; malformed lines:
// `file:line: reason` on stderr, skipped.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "plots/figures.hpp"

namespace collreplay::plots {

int figure_main(int argc, char** argv, const std::string& figure, FigureFn draw);
// `report RESULTS... [--out DIR] [--name NAME] [--embed-existing]`: report.md from the results
// (plots/report.hpp), with its figures; the exit code (plots/bin/report.cpp).
int report_main(int argc, char** argv);

// Runs `body`; an exception becomes one line on stderr and the house exit code
// (common/errors.hpp: UsageError 2, anything else 1). The one catch site of a plot program.
int guarded(const std::string& program, const std::function<int()>& body);

// Where outputs go by default: the folder given, or the folder of the first file given.
std::string default_out_dir(const std::vector<std::string>& inputs);

// Reads `inputs` (warnings to stderr); UsageError when they hold no records at all.
std::vector<Record> read_or_fail(const std::vector<std::string>& inputs);

}  // namespace collreplay::plots
