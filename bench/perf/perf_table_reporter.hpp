// Google Benchmark reporter that prints the nccl-tests table: one line per size with the
// out-of-place and in-place columns (time us, algbw, busbw, #wrong). It reads what the harness
// put in each run: manual time (per-op, combined across ranks, microseconds) and the counters
// "bytes", "count", "in_place", "bus_factor", "wrong", "cpu_us". Halves are paired by size, in arrival
// order within a size (with --benchmark_repetitions=N all N out-of-place runs of a size arrive
// before its in-place runs); a line is printed when its pair is complete (or at once for ops
// without an in-place form), unpaired halves at the end.
#pragma once
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>
#include <string>

namespace collreplay {

class PerfTableReporter final : public benchmark::BenchmarkReporter {
 public:
  // `root`: the root column (broadcast's root; -1 for ops without one, as nccl-tests prints).
  // `cputime` (-C 1): the time columns show the host's issue time per op ("cputime"), the
  // bandwidths stay those of the op's time, as nccl-tests prints them.
  PerfTableReporter(std::FILE* out, std::string type_name, std::string redop, bool has_in_place,
                    int root = -1, bool cputime = false);

  bool ReportContext(const Context&) override { return true; }  // the harness prints the header
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  // Column heads; printed by the harness after its own header lines.
  void print_column_heads() const;
  // "# Out of bounds values" / "# Avg bus bandwidth" lines, as nccl-tests ends its output.
  void print_footer() const;

 private:
  struct Half {
    double time_us, algbw_GBps, busbw_GBps;
    std::uint64_t wrong;
  };
  void print_line(double bytes, double count, const std::optional<Half>& out_of_place,
                  const std::optional<Half>& in_place);

  std::FILE* out_;
  std::string type_name_;
  std::string redop_;
  bool has_in_place_;
  int root_;
  bool cputime_;
  struct Waiting {
    double count = 0;
    std::deque<Half> out_of_place, in_place;
  };
  std::map<double, Waiting> waiting_;  // by size in bytes: halves whose partner has not arrived
  std::uint64_t wrong_total_ = 0;
  double busbw_sum_ = 0;
  int busbw_values_ = 0;
};

// For ranks other than 0: swallows everything.
class NullReporter final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace collreplay
