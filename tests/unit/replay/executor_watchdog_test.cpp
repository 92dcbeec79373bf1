// The executor never waits without the watchdog, names the op that is stuck, keeps one stream
// per group, and lets communicators be abandoned before anything frees or synchronizes; replay
// -c poisons all_to_allv output. A "stalled" fake collective is a peer stopped mid-collective.
#include <gtest/gtest.h>

#include <chrono>
#include <future>

#include "bench/compute/cpu/compute_blas.hpp"
#include "bench/executor/executor.hpp"
#include "bench/replay/measure/replay_check.hpp"
#include "common/errors.hpp"
#include "tests/unit/replay/fake_communicator.hpp"
#include "tests/unit/replay/fake_device_engine.hpp"
#include "tests/unit/replay/replay_schedule_fixture.hpp"

namespace collreplay {
namespace {

using testing::FakeCommunicator;
using testing::FakeDeviceEngine;

constexpr double kTimeoutS = 0.3;
// Far beyond the watchdog: reaching it means the step would have hung for ever.
constexpr auto kHangLimit = std::chrono::seconds(60);

ExecutorOptions with_timeout() {
  ExecutorOptions o;
  o.steps = 1;
  o.warmup_steps = 0;
  o.timeout_s = kTimeoutS;
  return o;
}

// Runs one overlapped step; returns the TimeoutError's message, or "" when the step ended
// without one. A step still running after kHangLimit is released (so the test ends) and fails.
std::string timeout_message_of_step(Executor& executor, std::vector<FakeCommunicator*> comms) {
  auto step = std::async(std::launch::async, [&]() -> std::string {
    std::vector<double> op_ms;
    try {
      executor.run_step(PassKind::overlapped, op_ms);
    } catch (const TimeoutError& e) {
      return e.what();
    }
    return "";
  });
  if (step.wait_for(kHangLimit) != std::future_status::ready) {
    for (FakeCommunicator* comm : comms) comm->release();
    step.wait();
    ADD_FAILURE() << "the step hung: the watchdog never fired";
    return "";
  }
  return step.get();
}

TEST(ExecutorWatchdog, DeviceStepStuckBehindACollectiveTimesOutNamingIt) {
  const Schedule schedule = testing::two_unit_schedule(1 << 20, 64);
  FakeCommunicator world(1);
  world.stall_from = 0;  // ag.u0 never finishes; fwd.u0 on the GEMM stream waits for it
  GroupComms groups(world, schedule, 0);
  FakeDeviceEngine engine;
  Executor executor(schedule, groups, engine, with_timeout(), [](double v) { return v; });
  const std::string message = timeout_message_of_step(executor, {&world});
  EXPECT_NE(message.find("all_gather 'ag.u0'"), std::string::npos) << message;
  EXPECT_NE(message.find("group world"), std::string::npos) << message;
  EXPECT_NE(message.find("1 MiB"), std::string::npos) << message;
  world.release();
}

TEST(ExecutorWatchdog, HostTimeoutNamesKindGroupAndBytes) {
  const Schedule schedule = testing::two_unit_schedule(1 << 20, 64);
  FakeCommunicator world(1);
  world.stall_from = 1;  // ag.u0 finishes, ag.u1 does not
  GroupComms groups(world, schedule, 0);
  auto engine = make_blas_engine(1);
  Executor executor(schedule, groups, *engine, with_timeout(), [](double v) { return v; });
  const std::string message = timeout_message_of_step(executor, {&world});
  EXPECT_NE(message.find("all_gather 'ag.u1' (group world, 1 MiB, unit u1)"), std::string::npos)
      << message;
  world.release();
}

// op 0: a data-parallel all-gather that never finishes; op 1: an expert all-to-all; op 2: a GEMM
// after op 1. With one stream per group, op 1 and op 2 finish although op 0 is stuck.
Schedule two_group_schedule() {
  Schedule s = testing::two_unit_schedule(1 << 20, 64);
  s.ops = {testing::comm_op("ag.dp", "u0", CollectiveKind::all_gather, 1 << 20, {}, -1),
           testing::comm_op("a2a.ep", "u0", CollectiveKind::all_to_all, 1 << 10, {}, -1),
           testing::compute_op("expert", "u0", 64, {1})};
  std::get<CollectiveOp>(s.ops[0].body).group = GroupKind::data_parallel;
  std::get<CollectiveOp>(s.ops[1].body).group = GroupKind::expert;
  return s;
}

void expect_expert_group_not_blocked(bool device) {
  const Schedule schedule = two_group_schedule();
  FakeCommunicator world(1);
  GroupComms groups(world, schedule, 0);
  auto& dp = dynamic_cast<FakeCommunicator&>(groups.get(GroupKind::data_parallel));
  auto& ep = dynamic_cast<FakeCommunicator&>(groups.get(GroupKind::expert));
  dp.stall_from = 0;
  FakeDeviceEngine device_engine;
  auto host_engine = make_blas_engine(1);
  ComputeEngine& engine = device ? static_cast<ComputeEngine&>(device_engine) : *host_engine;
  Executor executor(schedule, groups, engine, with_timeout(), [](double v) { return v; });
  const std::string message = timeout_message_of_step(executor, {&dp, &ep});
  EXPECT_NE(message.find("all_gather 'ag.dp' (group data_parallel"), std::string::npos) << message;
  EXPECT_EQ(ep.collectives_issued, 1);
  EXPECT_TRUE(ep.record()->query()) << "the expert all-to-all queued behind the stuck all-gather";
  if (device) {
    EXPECT_TRUE(engine.record()->query()) << "the expert GEMM never ran";
  }
  dp.release();
}

TEST(ExecutorStreams, OneStreamPerGroupOnDevice) { expect_expert_group_not_blocked(true); }
TEST(ExecutorStreams, OneRequestQueuePerGroupOnHost) { expect_expert_group_not_blocked(false); }

TEST(ExecutorWatchdog, UnwindingAbandonsEveryCommunicatorBeforeFreeingBuffers) {
  std::vector<std::string> log;
  {
    const Schedule schedule = two_group_schedule();
    FakeCommunicator world(1, &log);
    try {
      GroupComms groups(world, schedule, 0);
      dynamic_cast<FakeCommunicator&>(groups.get(GroupKind::data_parallel)).stall_from = 0;
      FakeDeviceEngine engine;
      Executor executor(schedule, groups, engine, with_timeout(), [](double v) { return v; });
      const AbandonOnUnwind abandon(groups);
      std::vector<double> op_ms;
      executor.run_step(PassKind::overlapped, op_ms);
      ADD_FAILURE() << "no TimeoutError";
    } catch (const TimeoutError&) {
    }
  }
  ASSERT_GE(log.size(), 3u);
  // Subgroups first (groups 0 and 0: expert and data_parallel, in reverse), then world.
  EXPECT_EQ(log[0], "abandon group 0");
  EXPECT_EQ(log[1], "abandon group 0");
  EXPECT_EQ(log[2], "abandon world");
  for (std::size_t i = 3; i < log.size(); ++i) EXPECT_EQ(log[i].rfind("release", 0), 0u) << log[i];
}

TEST(ExecutorWatchdog, NoAbandonWithoutAnException) {
  std::vector<std::string> log;
  const Schedule schedule = testing::two_unit_schedule(1 << 10, 8);
  FakeCommunicator world(0, &log);
  GroupComms groups(world, schedule, 0);
  { const AbandonOnUnwind abandon(groups); }
  EXPECT_TRUE(log.empty());
}

TEST(ReplayCheck, AllToAllvThatWritesNothingIsCaught) {
  Schedule s;
  s.model = "test";
  s.world = 1;
  for (const char* name : {"dispatch.0", "dispatch.1"}) {
    ScheduleOp op = testing::comm_op(name, "u0", CollectiveKind::all_to_allv, 2048, {}, -1);
    CollectiveOp& c = std::get<CollectiveOp>(op.body);
    c.send_counts = {1024};
    c.recv_counts = {1024};
    s.ops.push_back(op);
  }
  FakeCommunicator world(0);
  world.all_to_allv_calls_that_write = 1;  // dispatch.0 is right; dispatch.1 writes nothing
  GroupComms groups(world, s, 0);
  auto engine = make_blas_engine(1);
  Executor executor(s, groups, *engine, {}, [](double v) { return v; });
  try {
    check_replayed_collectives(executor, 1);
    ADD_FAILURE() << "an all_to_allv that wrote nothing passed -c";
  } catch (const DataMismatchError& e) {
    EXPECT_NE(std::string(e.what()).find("dispatch.1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace collreplay
