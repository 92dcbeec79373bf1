// Progress on long work, for the person at the terminal: what is about to run and roughly how
// long it will take, then one line per finished piece (a pass, a step, a size) with the time
// spent and the time left. Rank 0 only, on stderr (stdout carries tables and results), and only
// when stderr is a terminal or when asked (--progress), so logs and tests stay quiet.
#pragma once
#include <chrono>
#include <cstdio>
#include <string>

namespace collreplay {

// Whether this process reports: rank 0, and `asked` or stderr a terminal.
bool progress_wanted(bool asked, int rank);

// "12 s", "3 min 20 s", "1 h 05 min".
std::string format_duration(double seconds);

class Progress {
 public:
  // `program` prefixes every line; `total_work` in any unit that grows with the time the work
  // takes (pieces, bytes moved, GEMM flops; 0: unknown); silent unless `enabled`.
  Progress(std::string program, double total_work, bool enabled, std::FILE* out = stderr);

  bool enabled() const { return enabled_; }
  // What is about to run; `estimate_s` > 0 adds "(about N s)".
  void announce(const std::string& what, double estimate_s = 0) const;
  // `work_done` of the total is finished, the last piece named by `label` ("pass 2/3: comm-only"):
  // prints the elapsed time and, from the time per unit of work so far, the time left.
  void advance(double work_done, const std::string& label) const;
  double elapsed_s() const;

 private:
  std::string program_;
  double total_work_;
  bool enabled_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace collreplay
