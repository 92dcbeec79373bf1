// A device-like compute engine on a fake stream (fake_communicator.hpp): issue() returns at once
// and a GEMM finishes after the events it was given and the engine's earlier work, taking
// `ms_per_op`. Lets executor tests run the device path (everything enqueued at once) on a host.
#pragma once
#include "bench/compute/compute_engine.hpp"
#include "tests/unit/replay/fake_communicator.hpp"

namespace collreplay::testing {

class FakeDeviceEngine : public ComputeEngine {
 public:
  explicit FakeDeviceEngine(double ms_per_op = 0) : ms_per_op_(ms_per_op) {}
  std::string description() const override { return "fake device engine"; }
  bool enqueues_on_device() const override { return true; }
  std::uint64_t reserve(const std::vector<GemmShape>&, DType) override { return 0; }
  void issue(const ComputeOp& op, double,
             std::span<const std::shared_ptr<StreamEvent>> after) override {
    for (const auto& event : after) stream_.wait_on(event);
    stream_.push(op.gemms.empty() ? 0 : ms_per_op_, false);
  }
  std::shared_ptr<StreamEvent> record() override { return stream_.record(); }
  void synchronize() override { record()->synchronize(); }

 private:
  double ms_per_op_;
  FakeStream stream_;
};

}  // namespace collreplay::testing
