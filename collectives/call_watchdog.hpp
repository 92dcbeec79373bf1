// A watchdog for library calls that can block beyond any timeout of their own, on a thread of
// its own. A blocking NCCL communicator (the NCCL backend's: collectives/nccl/nccl_setup.cpp says
// why) blocks its caller in init and split until every rank has arrived, in the first
// collective with a peer while it connects to it, and in any launch once the stream's queue is
// full of kernels that wait for a stopped peer. The blocked thread cannot time itself out, and
// ncclCommAbort from another thread would free the communicator under the call that is still
// inside it (NCCL makes abort safe at any point only for nonblocking communicators). So the
// watchdog never aborts: a call still in progress after the timeout (or, checked while it is,
// a library that reports an asynchronous error) ends the process with one line naming the call,
// its size and its rank, exit code 4 (1 for the error); the launcher then ends the other ranks,
// as after SetupWatchdog (bench/app/setup_watchdog.hpp).
//
//   CallWatchdog watchdog(300, "NCCL rank 0 of 2 on host h, GPU 0", health);
//   {
//     const CallWatchdog::Scope watched(watchdog, {"ncclAllGather", count, DType::bf16});
//     ncclAllGather(...);
//   }
//
// A Scope costs the calling thread two atomic increments and a few relaxed stores: no clock, no
// lock, so it can bracket every launch of a timed loop. The watchdog's thread samples which
// call is in progress every kPollPeriod: a call seen on consecutive samples has lasted at least
// as long as the samples span. Scopes do not nest, and only one thread makes calls.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "common/dtype.hpp"

namespace collreplay {

// One call into a library, as messages name it: "ncclCommSplit", or a collective with its size
// ("ncclAllGather of 32 MiB per rank (8388608 x fp32)"), formatted only when a message needs it.
struct LibraryCall {
  LibraryCall(const char* call_name) : name(call_name) {}  // NOLINT: a bare name is a call
  LibraryCall(const char* call_name, std::size_t elements, DType type)
      : name(call_name), count(elements), dtype(type), sized(true) {}
  std::string describe() const;
  const char* name;  // a string literal: it outlives the call
  std::size_t count = 0;
  DType dtype = DType::f32;
  bool sized = false;
};

class CallWatchdog {
 public:
  static constexpr std::chrono::milliseconds kPollPeriod{100};

  // Asked on the watchdog's thread while a call has been in progress for a poll period: "" while
  // the library is healthy, else what failed (it must be safe to ask from a second thread).
  using HealthCheck = std::function<std::string()>;

  // timeout_s <= 0: calls are never timed out (the health check still runs). `where` names the
  // rank in messages.
  CallWatchdog(double timeout_s, std::string where, HealthCheck health = {});
  ~CallWatchdog();
  CallWatchdog(const CallWatchdog&) = delete;
  CallWatchdog& operator=(const CallWatchdog&) = delete;

  void set_timeout_seconds(double seconds) { timeout_s_.store(seconds); }
  // Ends the watching thread (idempotent): after this nothing calls the health check, so what
  // it reads (the library's handle) may be destroyed.
  void stop();

  class Scope {
   public:
    Scope(CallWatchdog& watchdog, const LibraryCall& call);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    CallWatchdog& watchdog_;
  };

 private:
  void watch();
  // The call in progress when the sequence was `sequence`, or nothing when it has moved on.
  bool snapshot(std::uint64_t sequence, LibraryCall& call) const;

  std::atomic<std::uint64_t> sequence_{0};  // odd while a call is in progress
  std::atomic<const char*> name_{""};
  std::atomic<std::size_t> count_{0};
  std::atomic<int> dtype_{0};
  std::atomic<bool> sized_{false};
  std::atomic<double> timeout_s_;
  std::string where_;
  HealthCheck health_;
  std::mutex mutex_;
  std::condition_variable stopping_changed_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts after the members it reads exist
};

}  // namespace collreplay
