// An in-process, single-rank Communicator for executor tests: host buffers, and collectives
// that take a programmed time on an in-order stream (a collective of B bytes finishes
// ms_per_mib * B / MiB after the previous one, or after its issue if the stream was idle).
// A stall (stall_from) makes every collective from the N-th on never finish until release():
// a peer that stopped mid-collective. Events may also wait on other streams' events
// (wait_on), as device streams do, so the executor's device path runs on fakes.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "collectives/communicator.hpp"
#include "common/errors.hpp"

namespace collreplay::testing {

class FakeEvent : public StreamEvent {
 public:
  using Clock = std::chrono::steady_clock;
  explicit FakeEvent(Clock::time_point at, std::vector<std::shared_ptr<StreamEvent>> after = {},
                     std::shared_ptr<std::atomic<bool>> gate = nullptr)
      : at_(at), after_(std::move(after)), gate_(std::move(gate)) {}
  bool query() override {
    if (done_) return true;
    if (gate_ && !gate_->load()) return false;
    for (const auto& event : after_)
      if (!event->query()) return false;
    if (Clock::now() < at_) return false;
    done_ = true;
    after_.clear();  // long chains of in-order events collapse once done
    return true;
  }
  void synchronize() override {
    while (!query()) std::this_thread::yield();
  }
  double elapsed_ms_since(const StreamEvent& earlier) const override {
    return std::chrono::duration<double, std::milli>(at_ -
                                                     dynamic_cast<const FakeEvent&>(earlier).at_)
        .count();
  }
  void* native_handle() const override { return nullptr; }

 private:
  Clock::time_point at_;
  std::vector<std::shared_ptr<StreamEvent>> after_;
  std::shared_ptr<std::atomic<bool>> gate_;
  bool done_ = false;
};

// An in-order stream of fake events: each new event waits for the previous one, for the events
// given to wait_on() since, and for a gate when stalled.
class FakeStream {
 public:
  using Clock = FakeEvent::Clock;
  std::shared_ptr<StreamEvent> push(double duration_ms, bool stalled) {
    const auto now = Clock::now();
    const auto start = busy_until_ > now ? busy_until_ : now;
    busy_until_ = start + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double, std::milli>(duration_ms));
    std::vector<std::shared_ptr<StreamEvent>> after = std::move(waits_);
    waits_.clear();
    if (tail_) after.push_back(tail_);
    tail_ = std::make_shared<FakeEvent>(busy_until_, std::move(after), stalled ? gate_ : nullptr);
    return tail_;
  }
  std::shared_ptr<StreamEvent> record() { return push(0, false); }
  void wait_on(const std::shared_ptr<StreamEvent>& event) { waits_.push_back(event); }
  void release() { gate_->store(true); }

 private:
  Clock::time_point busy_until_{};
  std::shared_ptr<StreamEvent> tail_;
  std::vector<std::shared_ptr<StreamEvent>> waits_;
  std::shared_ptr<std::atomic<bool>> gate_ = std::make_shared<std::atomic<bool>>(false);
};

class FakeCommunicator : public Communicator {
 public:
  explicit FakeCommunicator(double ms_per_mib, std::vector<std::string>* log = nullptr,
                            std::string name = "world")
      : ms_per_mib_(ms_per_mib), log_(log), name_(std::move(name)) {}
  int rank() const override { return 0; }
  int size() const override { return 1; }
  BackendKind backend() const override { return BackendKind::mpi; }
  std::string transport() const override { return "self"; }
  std::string device_description() const override { return "host"; }
  std::map<std::string, std::string> library_versions() const override { return {}; }
  bool device_buffers() const override { return false; }
  void* allocate(std::size_t bytes) override {
    allocated_bytes += bytes;
    return std::malloc(bytes);
  }
  void release(void* buffer) override {
    note("release " + name_);
    std::free(buffer);
  }
  void copy_from_host(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  std::unique_ptr<Communicator> split(int color, int) override {
    auto child =
        std::make_unique<FakeCommunicator>(ms_per_mib_, log_, "group " + std::to_string(color));
    child->stall_from = stall_from;
    return child;
  }
  void all_gather(const void* s, void* r, std::size_t n, DType t) override { copy(s, r, n, t); }
  void reduce_scatter(const void* s, void* r, std::size_t n, DType t,
                      ReduceOp = ReduceOp::sum) override {
    copy(s, r, n, t);
  }
  void all_to_all(const void* s, void* r, std::size_t n, DType t) override { copy(s, r, n, t); }
  void all_to_allv(const void* s, PeerCounts sl, void* r, PeerCounts, DType t) override {
    if (all_to_allv_calls_that_write >= 0 && all_to_allv_calls_that_write-- == 0) {
      copy(s, nullptr, sl.counts[0], t);  // takes its time, writes nothing
      return;
    }
    copy(s, r, sl.counts[0], t);
  }
  void all_reduce(const void* s, void* r, std::size_t n, DType t,
                  ReduceOp = ReduceOp::sum) override {
    copy(s, r, n, t);
  }
  void broadcast(const void* s, void* r, std::size_t n, DType t, int) override { copy(s, r, n, t); }
  // A world of one: every send's data is the next receive's.
  void p2p_group(std::span<const P2pCall> calls) override {
    std::size_t bytes = 0;
    for (const P2pCall& c : calls) bytes += c.count * dtype_size_bytes(c.dtype);
    if (log_) log_->push_back("p2p group of " + std::to_string(calls.size()) + " on " + name_);
    copy(nullptr, nullptr, bytes, DType::fp8);  // one byte per element: takes the group's time
  }
  std::shared_ptr<StreamEvent> record() override { return stream_.record(); }
  void wait_on(const std::shared_ptr<StreamEvent>& event) override { stream_.wait_on(event); }
  void wait_all(const std::string&) override { record()->synchronize(); }
  void barrier() override {}
  void set_timeout_seconds(double s) override { timeout_s_ = s; }
  double timeout_seconds() const override { return timeout_s_; }
  [[noreturn]] void abort(int code) override { std::exit(code); }
  void abandon() override {
    note("abandon " + name_);
    stream_.release();  // an aborted communicator's work ends
  }
  void* native_stream() const override { return nullptr; }
  // The stalled collectives finish (so that a test can end a step it found hanging).
  void release() { stream_.release(); }

  std::size_t allocated_bytes = 0;
  int collectives_issued = 0;
  int stall_from = -1;  // >= 0: the collective with this index and all after it stall
  // >= 0: all_to_allv writes its output this many more times, then writes nothing.
  int all_to_allv_calls_that_write = -1;

 private:
  void note(const std::string& what) {
    if (log_) log_->push_back(what);
  }
  void copy(const void* s, void* r, std::size_t count, DType t) {
    const std::size_t bytes = count * dtype_size_bytes(t);
    if (r && s != r && bytes) std::memmove(r, s, bytes);
    const bool stalled = stall_from >= 0 && collectives_issued >= stall_from;
    stream_.push(ms_per_mib_ * static_cast<double>(bytes) / (1 << 20), stalled);
    ++collectives_issued;
  }

  double ms_per_mib_;
  std::vector<std::string>* log_;
  std::string name_;
  double timeout_s_ = 0;
  FakeStream stream_;
};

}  // namespace collreplay::testing
