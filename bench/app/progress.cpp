#include "bench/app/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace collreplay {

bool progress_wanted(bool asked, int rank) { return rank == 0 && (asked || isatty(STDERR_FILENO)); }

std::string format_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char text[32];
  if (s < 60)
    std::snprintf(text, sizeof text, "%ld s", s);
  else if (s < 3600)
    std::snprintf(text, sizeof text, "%ld min %02ld s", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%ld h %02ld min", s / 3600, s % 3600 / 60);
  return text;
}

Progress::Progress(std::string program, double total_work, bool enabled, std::FILE* out)
    : program_(std::move(program)),
      total_work_(total_work),
      enabled_(enabled),
      out_(out),
      start_(std::chrono::steady_clock::now()) {}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::announce(const std::string& what, double estimate_s) const {
  if (!enabled_) return;
  if (estimate_s > 0)
    std::fprintf(out_, "%s: %s (about %s)\n", program_.c_str(), what.c_str(),
                 format_duration(estimate_s).c_str());
  else
    std::fprintf(out_, "%s: %s\n", program_.c_str(), what.c_str());
  std::fflush(out_);
}

void Progress::advance(double work_done, const std::string& label) const {
  if (!enabled_) return;
  const double elapsed = elapsed_s();
  std::string line = program_ + ": " + label + ", " + format_duration(elapsed) + " elapsed";
  if (total_work_ > 0 && work_done > 0 && work_done < total_work_)
    line += ", ~" + format_duration(elapsed / work_done * (total_work_ - work_done)) + " left";
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

}  // namespace collreplay
