// An in-process, single-rank Communicator for executor tests: host buffers, and collectives
// that take a programmed time on an in-order stream (a collective of B bytes finishes
// ms_per_mib * B / MiB after the previous one, or after its issue if the stream was idle).
#pragma once
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "collectives/communicator.hpp"
#include "common/errors.hpp"

namespace collreplay::testing {

class FakeEvent : public StreamEvent {
 public:
  using Clock = std::chrono::steady_clock;
  explicit FakeEvent(Clock::time_point at) : at_(at) {}
  bool query() override { return Clock::now() >= at_; }
  void synchronize() override {
    while (!query()) {
    }
  }
  double elapsed_ms_since(const StreamEvent& earlier) const override {
    return std::chrono::duration<double, std::milli>(
               at_ - dynamic_cast<const FakeEvent&>(earlier).at_)
        .count();
  }
  void* native_handle() const override { return nullptr; }

 private:
  Clock::time_point at_;
};

class FakeCommunicator : public Communicator {
 public:
  explicit FakeCommunicator(double ms_per_mib) : ms_per_mib_(ms_per_mib) {}
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
  void release(void* buffer) override { std::free(buffer); }
  void copy_from_host(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  std::unique_ptr<Communicator> split(int, int) override {
    return std::make_unique<FakeCommunicator>(ms_per_mib_);
  }
  void all_gather(const void* s, void* r, std::size_t n, DType t) override { copy(s, r, n, t); }
  void reduce_scatter(const void* s, void* r, std::size_t n, DType t) override {
    copy(s, r, n, t);
  }
  void all_to_all(const void* s, void* r, std::size_t n, DType t) override { copy(s, r, n, t); }
  void all_to_allv(const void* s, PeerCounts sl, void* r, PeerCounts, DType t) override {
    copy(s, r, sl.counts[0], t);
  }
  void all_reduce(const void* s, void* r, std::size_t n, DType t) override { copy(s, r, n, t); }
  std::shared_ptr<StreamEvent> record() override { return std::make_shared<FakeEvent>(busy_until_); }
  void wait_all(const std::string&) override { record()->synchronize(); }
  void barrier() override {}
  void set_timeout_seconds(double s) override { timeout_s_ = s; }
  double timeout_seconds() const override { return timeout_s_; }
  [[noreturn]] void abort(int code) override { std::exit(code); }
  void* native_stream() const override { return nullptr; }

  std::size_t allocated_bytes = 0;
  int collectives_issued = 0;

 private:
  void copy(const void* s, void* r, std::size_t count, DType t) {
    const std::size_t bytes = count * dtype_size_bytes(t);
    if (s != r && bytes) std::memmove(r, s, bytes);
    const auto now = FakeEvent::Clock::now();
    const auto start = busy_until_ > now ? busy_until_ : now;
    busy_until_ = start + std::chrono::duration_cast<FakeEvent::Clock::duration>(
                              std::chrono::duration<double, std::milli>(
                                  ms_per_mib_ * static_cast<double>(bytes) / (1 << 20)));
    ++collectives_issued;
  }

  double ms_per_mib_;
  double timeout_s_ = 0;
  FakeEvent::Clock::time_point busy_until_{};
};

}  // namespace collreplay::testing
