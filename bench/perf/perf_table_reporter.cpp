#include "bench/perf/perf_table_reporter.hpp"

#include "collectives/ops/op_spec.hpp"

namespace collreplay {
namespace {

// `value` in at most `width` characters, as nccl-tests keeps its columns: two decimals, then
// fewer, then exponent notation (a 45 ms time is "44933.6", not a wider "44933.56").
std::string fitted(double value, int width) {
  char text[32];
  for (int decimals = 2; decimals >= 0; --decimals)
    if (std::snprintf(text, sizeof text, "%*.*f", width, decimals, value) <= width) return text;
  std::snprintf(text, sizeof text, "%*.*e", width, width >= 7 ? 1 : 0, value);
  return text;
}

double counter(const benchmark::BenchmarkReporter::Run& run, const char* name) {
  auto it = run.counters.find(name);
  return it == run.counters.end() ? 0.0 : static_cast<double>(it->second);
}

}  // namespace

PerfTableReporter::PerfTableReporter(std::FILE* out, std::string type_name, std::string redop,
                                     bool has_in_place, int root, bool cputime)
    : out_(out),
      type_name_(std::move(type_name)),
      redop_(std::move(redop)),
      has_in_place_(has_in_place),
      root_(root),
      cputime_(cputime) {}

void PerfTableReporter::print_column_heads() const {
  std::fprintf(out_, "#\n");
  std::fprintf(out_, "# %10s  %12s  %8s  %6s  %6s     %s%s\n", "", "", "", "", "",
               "                out-of-place", "                       in-place");
  const char* time = cputime_ ? "cputime" : "time";
  std::fprintf(out_, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n",
               "size", "count", "type", "redop", "root", time, "algbw", "busbw", "#wrong", time,
               "algbw", "busbw", "#wrong");
  std::fprintf(out_, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)",
               "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
               "");
  std::fflush(out_);
}

void PerfTableReporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& run : runs) {
    if (run.run_type != Run::RT_Iteration) continue;  // aggregates of repetitions
    const double bytes = counter(run, "bytes");
    const double time_us = run.GetAdjustedRealTime();  // unit set to microseconds
    Half half;
    half.time_us = cputime_ ? counter(run, "cpu_us") : time_us;
    half.algbw_GBps = algbw_GBps(bytes, time_us * 1e-6);
    // The harness's counters carry the op's bus bytes as bus_bytes / S (run_case).
    half.busbw_GBps = busbw_GBps(bytes * counter(run, "bus_factor"), time_us * 1e-6);
    half.wrong = static_cast<std::uint64_t>(counter(run, "wrong"));
    busbw_sum_ += half.busbw_GBps;
    ++busbw_values_;
    wrong_total_ += half.wrong;
    if (!has_in_place_) {
      print_line(bytes, counter(run, "count"), half, std::nullopt);
      continue;
    }
    Waiting& w = waiting_[bytes];
    w.count = counter(run, "count");
    (counter(run, "in_place") != 0 ? w.in_place : w.out_of_place).push_back(half);
    if (w.out_of_place.empty() || w.in_place.empty()) continue;
    print_line(bytes, w.count, w.out_of_place.front(), w.in_place.front());
    w.out_of_place.pop_front();
    w.in_place.pop_front();
    if (w.out_of_place.empty() && w.in_place.empty()) waiting_.erase(bytes);
  }
}

void PerfTableReporter::Finalize() {
  for (auto& [bytes, w] : waiting_) {
    while (!w.out_of_place.empty() || !w.in_place.empty()) {
      std::optional<Half> oop, ip;
      if (!w.out_of_place.empty()) {
        oop = w.out_of_place.front();
        w.out_of_place.pop_front();
      }
      if (!w.in_place.empty()) {
        ip = w.in_place.front();
        w.in_place.pop_front();
      }
      print_line(bytes, w.count, oop, ip);
    }
  }
  waiting_.clear();
}

void PerfTableReporter::print_line(double bytes, double count, const std::optional<Half>& oop,
                                   const std::optional<Half>& ip) {
  std::fprintf(out_, "  %10.0f  %12.0f  %8s  %6s  %6d", bytes, count, type_name_.c_str(),
               redop_.c_str(), root_);
  for (const auto& half : {oop, ip}) {
    if (half)
      std::fprintf(out_, "  %7s  %6s  %6s  %6llu", fitted(half->time_us, 7).c_str(),
                   fitted(half->algbw_GBps, 6).c_str(), fitted(half->busbw_GBps, 6).c_str(),
                   static_cast<unsigned long long>(half->wrong));
    else
      std::fprintf(out_, "  %7s  %6s  %6s  %6s", "n/a", "n/a", "n/a", "n/a");
  }
  std::fprintf(out_, "\n");
  std::fflush(out_);
}

void PerfTableReporter::print_footer() const {
  // nccl-tests' wording; the count is every #wrong above, over all sizes and placements.
  std::fprintf(out_, "# Out of bounds values : %llu %s\n",
               static_cast<unsigned long long>(wrong_total_), wrong_total_ ? "FAILED" : "OK");
  std::fprintf(out_, "# Avg bus bandwidth    : %g \n",
               busbw_values_ ? busbw_sum_ / busbw_values_ : 0.0);
  std::fprintf(out_, "#\n");
  std::fflush(out_);
}

}  // namespace collreplay
