// sweeps/gpu/traces/kinds_side_by_side.py: a step's GPU time by kind of work, the reference's
// profiled trace beside replay's, forward and backward apart; the optimizer left out; bad input
// one line and exit 2. Needs python3.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

using nlohmann::json;

class KindsSideBySide : public PythonScriptTest {
 protected:
  KindsSideBySide() : PythonScriptTest("sweeps/gpu/traces/kinds_side_by_side.py") {}

  void save(const std::string& name, const json& events) {
    std::ofstream(dir_ / name) << json{{"traceEvents", events}}.dump();
  }

  // A kernel of `dur_us` at `ts` launched from inside the host ranges `stack` (outermost first).
  void add_reference_kernel(json& events, double ts, double dur_us, const std::string& name,
                            const std::vector<std::string>& stack) {
    const int id = ++correlation_;
    const double host_ts = 10.0 * id;
    for (std::size_t i = 0; i < stack.size(); ++i)
      events.push_back({{"cat", stack[i].rfind("aten::", 0) == 0 ? "cpu_op" : "user_annotation"},
                        {"name", stack[i]}, {"tid", 1}, {"ts", host_ts - 1.0 + 0.1 * i},
                        {"dur", 2.0 - 0.2 * i}});
    events.push_back({{"cat", "cuda_runtime"}, {"name", "cudaLaunchKernel"}, {"tid", 1},
                      {"ts", host_ts}, {"dur", 0.5}, {"args", {{"correlation", id}}}});
    events.push_back({{"cat", name.rfind("Memcpy", 0) == 0 ? "gpu_memcpy" : "kernel"},
                      {"name", name}, {"ts", ts}, {"dur", dur_us},
                      {"args", {{"correlation", id}}}});
  }

  int correlation_ = 0;
};

json replay_kernel(const std::string& phase, const std::string& label, const char* kind,
                   double dur_us) {
  json args = {{"phase", phase}, {"label", label}};
  if (kind) args["kind"] = kind;
  return {{"cat", "kernel"}, {"name", label}, {"ts", 0}, {"dur", dur_us}, {"args", args}};
}

TEST_F(KindsSideBySide, EachKindOfEachPhaseSideBySide) {
  json ref = json::array();
  ref.push_back({{"cat", "gpu_user_annotation"}, {"name", "reference.forward"}, {"ts", 1000},
                 {"dur", 1000}});
  ref.push_back({{"cat", "gpu_user_annotation"}, {"name", "Optimizer.step#AdamW.step"},
                 {"ts", 5000}, {"dur", 1000}});
  add_reference_kernel(ref, 1100, 2000, "Memcpy DtoD (Device -> Device)",
                       {"FSDP::pre_forward (layers.0)", "aten::copy_"});
  add_reference_kernel(ref, 1200, 3000, "nvjet_sm90_gemm", {"aten::linear", "aten::mm"});
  add_reference_kernel(ref, 3000, 1500, "indexing_backward_kernel",
                       {"IndexBackward0", "aten::_index_put_impl_"});
  add_reference_kernel(ref, 3500, 4000, "elementwise_kernel", {"aten::mul"});
  // An NCCL kernel under FSDP's range is a collective, not one of FSDP2's copies.
  add_reference_kernel(ref, 3200, 700, "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL",
                       {"FSDP::post_backward_reduce (layers.0)",
                        "c10d::reduce_scatter_tensor_coalesced_"});
  add_reference_kernel(ref, 5500, 9000, "multi_tensor_apply_kernel", {"aten::_foreach_mul_"});
  save("ref.json", ref);
  json rep = json::array({
      replay_kernel("forward", "ag.fwd.layers.0: FSDP2 copy-out (a memcpy per parameter)", "copy", 1800),
      replay_kernel("forward", "layers.0.self_attn.q_proj fwd", nullptr, 3300),
      replay_kernel("backward", "layers.0.mlp.experts: x[permuted_indices] backward: sort", "generic", 500),
      replay_kernel("recompute", "layers.0.input_layernorm: pow(2)", "vector", 3000),
      replay_kernel("optimizer", "optimizer: foreach mul_", "multi_tensor", 9000),
  });
  json comm = replay_kernel("backward", "rs.layers.0", nullptr, 900);
  comm["name"] = "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL";
  rep.push_back(comm);
  save("replay.json", rep);
  const Outcome o = run("python3 " + script_ + " " + (dir_ / "ref.json").string() + " " +
                        (dir_ / "replay.json").string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("| forward | FSDP2 copies | 2.00 | 1.80 | -0.20 |"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("| forward | GEMM | 3.00 | 3.30 | +0.30 |"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("| backward | MoE routing, permutation | 1.50 | 0.50 | -1.00 |"),
            std::string::npos) << o.out;
  // The recompute counts with backward; the optimizer on neither side.
  EXPECT_NE(o.out.find("| backward | norms, activations, the rest | 4.00 | 3.00 | -1.00 |"),
            std::string::npos) << o.out;
  EXPECT_NE(o.out.find("| backward | collectives | 0.70 | 0.90 | +0.20 |"), std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("| backward | FSDP2 copies"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("| backward | **all** | 6.20 | 4.40 | -1.80 |"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("9.00"), std::string::npos) << o.out;
}

TEST_F(KindsSideBySide, BadInputIsOneLineAndExitTwo) {
  save("no_ranges.json", json::array());
  save("replay.json", json::array({replay_kernel("forward", "x fwd", nullptr, 1)}));
  std::ofstream(dir_ / "broken.json") << "{not json";
  for (const auto& [ref, rep] : {std::pair{"broken.json", "replay.json"},
                                 std::pair{"no_ranges.json", "replay.json"},
                                 std::pair{"missing.json", "replay.json"}}) {
    const Outcome o = run("python3 " + script_ + " " + (dir_ / ref).string() + " " +
                          (dir_ / rep).string());
    EXPECT_EQ(o.exit_code, 2) << ref;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << ref << ": " << o.err;
    EXPECT_TRUE(o.out.empty()) << ref;
  }
}

}  // namespace
}  // namespace collreplay::cli_test
