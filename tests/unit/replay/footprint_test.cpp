// A rank's memory footprint from its schedule, before anything is allocated: the executor's
// buffers and the engine's operands must not exceed it, and the refusal is one line.
#include <gtest/gtest.h>

#include "bench/compute/cpu/compute_blas.hpp"
#include "bench/executor/executor.hpp"
#include "bench/replay/footprint.hpp"
#include "tests/unit/replay/fake_communicator.hpp"
#include "tests/unit/replay/replay_schedule_fixture.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay {
namespace {

TEST(Footprint, MatchesWhatTheExecutorAllocates) {
  const Schedule s = testing::two_unit_schedule(1 << 20, 256);
  const MemoryFootprint f = estimate_footprint(s, false, true);
  testing::FakeCommunicator world(0);
  GroupComms groups(world, s, 0);
  auto engine = make_blas_engine(1);
  Executor executor(s, groups, *engine, {}, [](double v) { return v; });
  EXPECT_EQ(f.collective_bytes, executor.collective_buffer_bytes());
  EXPECT_EQ(f.gemm_operand_bytes, executor.compute_buffer_bytes());
  EXPECT_EQ(f.check_bytes, 2u << 20);            // largest op: 1 MiB sent + 1 MiB received
  EXPECT_EQ(f.backend_scratch_bytes, 2u << 20);  // twice a reduce-scatter's send buffer
  EXPECT_EQ(f.host_bytes(),
            f.collective_bytes + f.gemm_operand_bytes + f.check_bytes + f.backend_scratch_bytes);
}

// The case that was killed by the kernel: Qwen2.5-7B, 2 layers, 16 tokens, 2 ranks on the host.
// Its root unit (embeddings and LM head, 1.1 B parameters) sets the buffers: gigabytes per rank.
TEST(Footprint, Qwen7bTwoLayersNeedsGigabytesPerRank) {
  WorkloadRequest q;
  q.model = "qwen2.5-7b";
  q.world = 2;
  q.gpus_per_node = 2;
  q.layers = 2;
  q.seq = 16;
  const MemoryFootprint host = estimate_footprint(build_schedule(q), false, false);
  EXPECT_GT(host.checked_bytes(), 6ull << 30);
  // One operand buffer for every GEMM: as big as the LM head's largest GEMM (its weight, 3584 x
  // 152064 fp32, plus the small activations), not its forward's B plus its gradient's C.
  EXPECT_LT(host.gemm_operand_bytes, 3584ull * 152064 * 4 * 11 / 10);
  EXPECT_GT(host.gemm_operand_bytes, 3584ull * 152064 * 4);
  const MemoryFootprint gpu = estimate_footprint(build_schedule(q), true, false);
  EXPECT_EQ(gpu.host_bytes(), 0u);
  EXPECT_GT(gpu.checked_bytes(), 2ull << 30);
}

TEST(Footprint, RefusalIsOneLineNamingNeedShareAndRanks) {
  const std::string line = does_not_fit_message(12ull << 30, 5ull << 30, 2, false);
  EXPECT_EQ(line,
            "needs 12.0 GiB per rank, 5.0 GiB available to each of the 2 ranks on this "
            "host; try --layers or fewer ranks per node");
}

TEST(Footprint, PartOfWhatIsAvailableIsLeftToWhatIsNotCounted) {
  EXPECT_EQ(usable_host_bytes(10ull << 30), 8ull << 30);
  EXPECT_EQ(usable_device_bytes(10ull << 30), 9ull << 30);
  EXPECT_GT(host_available_bytes(), 0u);  // /proc/meminfo is read on Linux
}

}  // namespace
}  // namespace collreplay
