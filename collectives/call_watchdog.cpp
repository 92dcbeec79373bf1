#include "collectives/call_watchdog.hpp"

#include <cstdio>
#include <cstdlib>

#include "collectives/backend.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

// The calling thread is stuck inside the library: no exception can reach it, so this thread ends
// the process (MPI_Abort from a second thread is not allowed under MPI_THREAD_FUNNELED).
[[noreturn]] void end_process(const std::string& message, int exit_code) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::fflush(stderr);
  std::_Exit(exit_code);
}

}  // namespace

std::string LibraryCall::describe() const {
  return sized ? describe_collective_call(name, count, dtype) : std::string(name);
}

CallWatchdog::CallWatchdog(double timeout_s, std::string where, HealthCheck health)
    : timeout_s_(timeout_s), where_(std::move(where)), health_(std::move(health)) {
  thread_ = std::thread([this] { watch(); });
}

CallWatchdog::~CallWatchdog() { stop(); }

void CallWatchdog::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stopping_changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

// The sequence is the seqlock of the call's fields: they are written while it is even, then the
// odd value is published; the fence keeps the previous call's end ordered before these writes,
// so a snapshot that is read back against an unchanged sequence never mixes two calls.
CallWatchdog::Scope::Scope(CallWatchdog& watchdog, const LibraryCall& call) : watchdog_(watchdog) {
  std::atomic_thread_fence(std::memory_order_release);
  watchdog_.name_.store(call.name, std::memory_order_relaxed);
  watchdog_.count_.store(call.count, std::memory_order_relaxed);
  watchdog_.dtype_.store(static_cast<int>(call.dtype), std::memory_order_relaxed);
  watchdog_.sized_.store(call.sized, std::memory_order_relaxed);
  watchdog_.sequence_.fetch_add(1, std::memory_order_release);
}

CallWatchdog::Scope::~Scope() { watchdog_.sequence_.fetch_add(1, std::memory_order_release); }

bool CallWatchdog::snapshot(std::uint64_t sequence, LibraryCall& call) const {
  call.name = name_.load(std::memory_order_relaxed);
  call.count = count_.load(std::memory_order_relaxed);
  call.dtype = static_cast<DType>(dtype_.load(std::memory_order_relaxed));
  call.sized = sized_.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  return sequence_.load(std::memory_order_relaxed) == sequence;
}

void CallWatchdog::watch() {
  using Clock = std::chrono::steady_clock;
  std::uint64_t seen = 0;  // the call in progress at the last sample (0: none)
  Clock::time_point seen_since;
  std::unique_lock lock(mutex_);
  while (!stopping_changed_.wait_for(lock, kPollPeriod, [this] { return stopping_; })) {
    const std::uint64_t sequence = sequence_.load(std::memory_order_acquire);
    const Clock::time_point now = Clock::now();
    if (sequence % 2 == 0 || sequence != seen) {
      seen = sequence % 2 == 0 ? 0 : sequence;
      seen_since = now;
      continue;
    }
    LibraryCall call("");
    if (!snapshot(sequence, call)) continue;
    if (health_)
      if (const std::string problem = health_(); !problem.empty() && snapshot(sequence, call))
        end_process(call.describe() + " failed while in progress: " + problem + " (" + where_ +
                        ")",
                    kExitRuntime);
    const double timeout_s = timeout_s_.load();
    const double waited_s = std::chrono::duration<double>(now - seen_since).count();
    if (timeout_s > 0 && waited_s >= timeout_s && snapshot(sequence, call)) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.1f", timeout_s);
      end_process(call.describe() + " did not finish within " + seconds + " s (" + where_ +
                      "): the call is blocked inside the library, so this rank ends itself",
                  kExitTimeout);
    }
  }
}

}  // namespace collreplay
