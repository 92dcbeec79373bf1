#include "bench/compare/compare_cli.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <vector>

#include "bench/compare/compare_table.hpp"
#include "bench/compare/measured_times.hpp"
#include "bench/compare/paired_times.hpp"
#include "common/errors.hpp"
#include "records/pairing.hpp"
#include "records/results_reader.hpp"

namespace collreplay::compare {
namespace {

// The records of `path` that compare sets side by side; a malformed line is a UsageError, since
// a gate that skipped it would pass a regression it never saw.
std::vector<records::Record> compared_records(const std::string& path, const char* side) {
  std::vector<records::Record> kept;
  for (records::Record& r : records::read_results_strictly({path}))
    if (is_compared_kind(r.kind())) kept.push_back(std::move(r));
  if (kept.empty())
    throw UsageError(std::string(side) + " " + path + " holds no perf, step or unit records");
  return kept;
}

void refuse_unpaired(const std::vector<const records::Record*>& unpaired, const char* side,
                     const char* other) {
  if (unpaired.empty()) return;
  const records::Record& first = *unpaired.front();
  throw UsageError(std::to_string(unpaired.size()) + " record" + (unpaired.size() == 1 ? "" : "s") +
                   " of " + side + " ha" + (unpaired.size() == 1 ? "s" : "ve") + " no partner in " +
                   other + ", first " + first.where() + " (" +
                   records::describe(records::key_of(first)) + ")");
}

}  // namespace

void add_compare_options(CLI::App& app, CompareOptions& options) {
  app.add_option("BASE", options.base, "results file or folder measured before")->required();
  app.add_option("NEW", options.candidate, "results file or folder measured after")->required();
  app.add_option("--threshold", options.threshold_pct,
                 "PCT: a time slower by more than this with p < 0.05 fails the gate (exit 1)")
      ->capture_default_str();
}

int run_compare(const CompareOptions& options) {
  if (!(options.threshold_pct >= 0) || !std::isfinite(options.threshold_pct))
    throw UsageError("--threshold must be a percentage >= 0");
  const std::vector<records::Record> base = compared_records(options.base, "BASE");
  const std::vector<records::Record> candidate = compared_records(options.candidate, "NEW");
  const records::Pairing pairing = records::pair_records(base, candidate);
  refuse_unpaired(pairing.only_base, "BASE", "NEW");
  refuse_unpaired(pairing.only_candidate, "NEW", "BASE");
  const Gate gate{options.threshold_pct, 0.05};
  const std::vector<PairedTime> times = compare_pairs(pairing.pairs, gate);
  print_compare_table(times, gate, std::cout);
  std::size_t tested = 0;
  for (const PairedTime& t : times) {
    if (t.verdict == Verdict::slower) return 1;
    tested += t.verdict != Verdict::untested;
  }
  // A gate that tested nothing has passed nothing: no committed results file carried samples
  // when this exited 0 on every pair of them (issue 38).
  if (tested == 0) {
    std::cerr << "compare: nothing tested: none of the " << times.size()
              << " paired times carries per-iteration samples on both sides (exit "
              << kExitNothingTested << "): the gate passed nothing\n";
    return kExitNothingTested;
  }
  return 0;
}

}  // namespace collreplay::compare
