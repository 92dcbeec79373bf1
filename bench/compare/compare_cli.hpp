// compare BASE NEW: the regression gate. Reads two results files or folders (records/), pairs
// their perf, step and unit records (records::pair_records), prints a markdown table of the
// changes with a U test over the per-iteration samples, and answers with an exit code:
// 0 nothing slower, 1 something slower beyond --threshold PCT at p < 0.05, 2 bad input
// (a malformed or missing file, a record with no partner on the other side, nothing to compare),
// 7 (kExitNothingTested) nothing could be tested: no paired time carries per-iteration samples on
// both sides, so the gate has seen no evidence either way; one line on stderr says so.
#pragma once
#include <string>

#include "bench/app/run/cli_names.hpp"

namespace collreplay::compare {

struct CompareOptions {
  std::string base;
  std::string candidate;
  double threshold_pct = 5;
};

void add_compare_options(CLI::App& app, CompareOptions& options);

// The exit code; bad input throws UsageError.
int run_compare(const CompareOptions& options);

}  // namespace collreplay::compare
