#include "bench/app/setup_watchdog.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "bench/app/guarded_main.hpp"
#include "common/errors.hpp"

namespace collreplay {

SetupWatchdog::SetupWatchdog(double timeout_s, std::string what) : what_(std::move(what)) {
  if (timeout_s > 0) thread_ = std::thread([this, timeout_s] { watch(timeout_s); });
}

SetupWatchdog::~SetupWatchdog() { disarm(); }

void SetupWatchdog::step(std::string what) {
  std::lock_guard lock(mutex_);
  what_ = std::move(what);
}

void SetupWatchdog::disarm() {
  {
    std::lock_guard lock(mutex_);
    disarmed_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SetupWatchdog::watch(double timeout_s) {
  std::unique_lock lock(mutex_);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeout_s));
  if (changed_.wait_until(lock, deadline, [this] { return disarmed_; })) return;
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  // The main thread is stuck inside a library: no exception can reach it, so this thread ends
  // the process (MPI_Abort from a second thread is not allowed under MPI_THREAD_FUNNELED).
  std::fprintf(stderr, "error: rank %d on %s: %s did not finish within %.1f s\n", launcher_rank(),
               host, what_.c_str(), timeout_s);
  std::fflush(stderr);
  std::_Exit(kExitTimeout);
}

}  // namespace collreplay
