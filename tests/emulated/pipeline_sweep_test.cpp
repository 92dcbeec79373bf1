// A pipeline over 4 emulated nodes (network namespaces, eth-1g links): sweeps/sweep runs replay
// with --pp 4 on 2 ranks per node, so each stage is a node and every activation and gradient
// crosses the shaped fabric with real sends and receives (the bubble measured, not assumed).
#include <nlohmann/json.hpp>

#include "tests/emulated/emulated.hpp"

namespace collreplay::emulated_test {
namespace {

class PipelineSweep : public EmulatedTest {};

TEST_F(PipelineSweep, FourStagesOnFourNodesSendAcrossTheFabric) {
  const Outcome o = run(sweep("--emulate --nodes 4 --ranks-per-node 2 --fabric eth-1g --backend mpi"
                              " --model sweeps/models/replay-tiny.json --compute model:h100"
                              " --steps 2 --warmup 1 --timeout 120 --out " +
                              quoted(dir_ / "out") + " -- --pp 4 --micro-batches 4 --seq 64"));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const auto records = cli_test::read_jsonl(dir_ / "out/eth-1g_n4_r2_replay-tiny_fsdp1.jsonl");
  int sends = 0, recvs = 0;
  for (const nlohmann::json& r : records) {
    if (r.value("record", "") == "op" && r.value("kind", "") == "send") ++sends;
    if (r.value("record", "") == "op" && r.value("kind", "") == "recv") ++recvs;
    if (r.value("record", "") != "step") continue;
    EXPECT_EQ(r["pp"], 4);
    EXPECT_EQ(r["nodes"], 4);
    EXPECT_EQ(r["run"]["fabric"], "eth-1g");
    // Stage 0 waits for its gradients: the overlapped step is longer than its compute alone.
    EXPECT_GT(r["overlapped_ms"].get<double>(), r["compute_ms"].get<double>());
  }
  // Rank 0 (stage 0): every micro-batch's activation out, every gradient in.
  EXPECT_EQ(sends, 4);
  EXPECT_EQ(recvs, 4);
  EXPECT_EQ(leftover_namespaces("crs"), "");
}

}  // namespace
}  // namespace collreplay::emulated_test
