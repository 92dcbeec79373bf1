// Schedule JSON round trip and the loader's rejections; the dry-run JSON keys.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"
#include "workloads/schedule_file.hpp"
#include "workloads/schedule_json.hpp"

namespace collreplay {
namespace {

Schedule mixtral_ep() {
  WorkloadRequest q = test::request("mixtral-8x7b", 16, "fsdp2");
  q.ep = 4;
  q.layers = 2;
  q.routing = "zipf:1.1";
  return build_schedule(q);
}

TEST(WorkloadsJson, RoundTripIsExact) {
  for (const Schedule& s :
       {mixtral_ep(), build_schedule(test::request("qwen2.5-7b", 6, "fsdp1", "size"))}) {
    const std::string text = schedule_to_json(s);
    const Schedule back = schedule_from_json(text, "mem");
    EXPECT_EQ(schedule_to_json(back), text);
    EXPECT_EQ(back.ops.size(), s.ops.size());
  }
}

std::string reject(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = nlohmann::json::parse(schedule_to_json(mixtral_ep()));
  edit(j);
  try {
    schedule_from_json(j.dump(), "bad.json");
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos);
    return what;
  }
  ADD_FAILURE() << "accepted";
  return "";
}

std::size_t first_a2av(const nlohmann::json& j) {
  for (std::size_t i = 0; i < j["ops"].size(); ++i)
    if (j["ops"][i].contains("collective") && j["ops"][i]["collective"]["kind"] == "all_to_allv")
      return i;
  return 0;
}

TEST(WorkloadsJson, LoaderRejections) {
  EXPECT_NE(reject([](auto& j) { j["version"] = 99; }).find("version"), std::string::npos);
  EXPECT_NE(reject([](auto& j) { j.erase("version"); }).find("version"), std::string::npos);
  EXPECT_NE(reject([](auto& j) { j["world"] = 0; }).find("world"), std::string::npos);
  EXPECT_NE(reject([](auto& j) { j["ops"][0]["collective"]["kind"] = "bcast"; }).find("kind"),
            std::string::npos);
  EXPECT_NE(reject([](auto& j) { j["ops"][1]["deps"] = {5}; }).find("earlier op"),
            std::string::npos);
  EXPECT_NE(reject([](auto& j) { j["ops"][1]["name"] = j["ops"][0]["name"]; }).find("unique"),
            std::string::npos);
  EXPECT_NE(reject([](auto& j) {
              j["ops"][first_a2av(j)]["collective"]["send_counts"].erase(0);
            }).find("one entry per rank"),
            std::string::npos);
  EXPECT_NE(
      reject([](auto& j) { j["ops"][first_a2av(j)]["collective"]["bytes"] = 2; }).find("bytes"),
      std::string::npos);
  EXPECT_NE(reject([](auto& j) { j["ops"][0]["collective"]["bytes"] = 3; }).find("bytes"),
            std::string::npos);
  EXPECT_NE(reject([](auto& j) { j["ep"] = 3; }).find("ep"), std::string::npos);
  EXPECT_THROW(schedule_from_json("{not json", "x"), UsageError);
  EXPECT_THROW(load_schedule_file("/nonexistent/schedule.json"), UsageError);
}

// The optimizer's multi_tensor kernels (foreach, torch's default on CUDA) keep their kind and
// operand element size through the file; a multi_tensor kernel whose lists cannot be told is
// refused (UsageError: one line, exit 2).
std::size_t optimizer_op_index(const nlohmann::json& j) {
  for (std::size_t i = 0; i < j["ops"].size(); ++i)
    if (j["ops"][i]["phase"] == "optimizer" && j["ops"][i].contains("compute")) return i;
  ADD_FAILURE() << "no optimizer op";
  return 0;
}

TEST(WorkloadsJson, MultiTensorKernelsRoundTrip) {
  const Schedule s = mixtral_ep();
  const std::string text = schedule_to_json(s);
  const nlohmann::json j = nlohmann::json::parse(text);
  const nlohmann::json& kernel = j["ops"][optimizer_op_index(j)]["compute"]["kernels"][0];
  EXPECT_EQ(kernel["kind"], "multi_tensor");
  EXPECT_EQ(kernel["operand_element_bytes"], 2);
  // The eager defaults' cost of a multi-tensor launch (host_time.hpp).
  EXPECT_EQ(kernel["host_us_per_launch"], 10);
  const Schedule back = schedule_from_json(text, "mem");
  EXPECT_EQ(schedule_to_json(back), text);
  const KernelSlice& k = back.ops[optimizer_op_index(j)].compute().kernels[0];
  EXPECT_EQ(k.kind, KernelKind::multi_tensor);
  EXPECT_EQ(k.operand_element_bytes, 2u);
  EXPECT_DOUBLE_EQ(k.host_us_per_launch, 10);
  EXPECT_EQ(multi_tensor_operands(k).reads, 1u);  // param.mul_: one list read, one written
  EXPECT_EQ(multi_tensor_operands(k).writes, 1u);
  // Other kinds write no such field.
  for (const auto& op : j["ops"]) {
    if (!op.contains("compute")) continue;
    for (const auto& kk : op["compute"]["kernels"]) {
      EXPECT_EQ(kk.contains("operand_element_bytes"), kk["kind"] == "multi_tensor") << kk;
    }
  }
}

TEST(WorkloadsJson, MultiTensorKernelNeedsItsOperandElementBytes) {
  auto kernel = [](nlohmann::json& j) -> nlohmann::json& {
    return j["ops"][optimizer_op_index(j)]["compute"]["kernels"][0];
  };
  for (const auto& edit : std::vector<std::function<void(nlohmann::json&)>>{
           [&](auto& j) { kernel(j).erase("operand_element_bytes"); },
           [&](auto& j) { kernel(j)["operand_element_bytes"] = 0; },
           [&](auto& j) { kernel(j)["operand_element_bytes"] = 3; },
           [&](auto& j) { kernel(j)["operand_element_bytes"] = -2; }})
    EXPECT_NE(reject(edit).find("operand_element_bytes"), std::string::npos);
  EXPECT_NE(
      reject([&](auto& j) { kernel(j)["host_us_per_launch"] = -1; }).find("host_us_per_launch"),
      std::string::npos);
  // More than multi_tensor_apply's 5 tensor lists.
  EXPECT_NE(reject([&](auto& j) {
              kernel(j)["read_bytes"] = kernel(j)["read_bytes"].template get<std::uint64_t>() * 6;
            }).find("at most 5"),
            std::string::npos);
  // A vector kernel needs none.
  nlohmann::json j = nlohmann::json::parse(schedule_to_json(mixtral_ep()));
  kernel(j)["kind"] = "vector";
  kernel(j).erase("operand_element_bytes");
  const Schedule back = schedule_from_json(j.dump(), "ok.json");
  EXPECT_EQ(back.ops[optimizer_op_index(j)].compute().kernels[0].kind, KernelKind::vector);
}

// A Linear's weight gradient dW = dY^T X reads A transposed, as torch's backward does; the flag
// is written only where set, survives the round trip, and a version-5 file without it loads.
TEST(WorkloadsJson, WeightGradientsReadATransposed) {
  const Schedule s = mixtral_ep();
  std::size_t wgrads = 0, others = 0;
  for (const ScheduleOp& op : s.ops)
    if (!op.is_collective())
      for (const GemmShape& g : op.compute().gemms) {
        const bool wgrad = g.label.size() > 6 && g.label.ends_with(" wgrad");
        EXPECT_EQ(g.a_transposed, wgrad) << g.label;
        (wgrad ? wgrads : others) += 1;
      }
  EXPECT_GT(wgrads, 0u);
  EXPECT_GT(others, 0u);
  nlohmann::json j = nlohmann::json::parse(schedule_to_json(s));
  std::size_t written = 0;
  for (auto& op : j["ops"])
    if (op.contains("compute"))
      for (auto& g : op["compute"]["gemms"]) {
        written += g.contains("a_transposed");
        g.erase("a_transposed");
      }
  EXPECT_EQ(written, wgrads);
  j["version"] = 5;
  const Schedule old = schedule_from_json(j.dump(), "v5.json");
  for (const ScheduleOp& op : old.ops) {
    if (op.is_collective()) continue;
    for (const GemmShape& g : op.compute().gemms) {
      EXPECT_FALSE(g.a_transposed) << g.label;
    }
  }
  EXPECT_NE(reject([](auto& j) {
              for (auto& op : j["ops"])
                if (op.contains("compute") && !op["compute"]["gemms"].empty()) {
                  op["compute"]["gemms"][0]["a_transposed"] = 1;
                  return;
                }
            }).find("a_transposed"),
            std::string::npos);
}

TEST(WorkloadsJson, DryRunKeysExactly) {
  const nlohmann::json j = nlohmann::json::parse(dry_run_json(mixtral_ep()));
  std::vector<std::string> top;
  for (auto it = j.begin(); it != j.end(); ++it) top.push_back(it.key());
  std::sort(top.begin(), top.end());
  EXPECT_EQ(top,
            (std::vector<std::string>{"compute_ops", "ep", "groups", "model", "moe", "plan",
                                      "shard_group", "totals", "tp", "units", "world", "wrap"}));
  for (const char* k : {"name", "params", "shard_bytes", "allgather_bytes", "reduce_scatter_bytes",
                        "allreduce_bytes", "fwd_flops", "bwd_flops"})
    EXPECT_TRUE(j["units"][0].contains(k)) << k;
  EXPECT_EQ(j["units"][0].size(), 8u);
  for (const auto& g : j["groups"]) {
    EXPECT_EQ(g.size(), 4u);
    for (const char* k : {"group", "size", "ops", "bytes"}) EXPECT_TRUE(g.contains(k)) << k;
  }
  ASSERT_EQ(j["moe"].size(), 2u);
  for (const char* k : {"layer", "dispatch_send_bytes", "dispatch_cross_rank_bytes",
                        "combine_send_bytes", "combine_cross_rank_bytes"})
    EXPECT_TRUE(j["moe"][0].contains(k)) << k;
  EXPECT_EQ(j["totals"].size(), 19u);
  for (const char* k : {"params", "active_params", "allgathers", "reduce_scatters", "alltoalls",
                        "allgather_bytes", "reduce_scatter_bytes", "alltoall_bytes", "allreduces",
                        "allreduce_bytes", "broadcasts", "broadcast_bytes", "sends", "send_bytes",
                        "recvs", "recv_bytes", "flops", "host_us", "kernels"})
    EXPECT_TRUE(j["totals"].contains(k)) << k;
  // Every phase's non-GEMM kernels, the optimizer a phase of its own, each compute op's slices.
  for (const char* phase : {"forward", "backward", "recompute", "optimizer"})
    EXPECT_GT(j["totals"]["kernels"][phase]["launches"].get<int>(), 0) << phase;
  const nlohmann::json& last = j["compute_ops"].back();
  EXPECT_EQ(last["name"], "optimizer.step");
  EXPECT_EQ(last["phase"], "optimizer");
  std::set<std::string> labels;
  for (const auto& op : j["compute_ops"])
    for (const auto& k : op["kernels"]) {
      labels.insert(k["label"].get<std::string>());
      if (k["kind"] == "sync") continue;  // a host wait moves no bytes
      EXPECT_GT(k["read_bytes"].get<std::uint64_t>() + k["write_bytes"].get<std::uint64_t>(), 0u)
          << k["label"];
    }
  auto has = [&](const std::string& part) {
    for (const std::string& l : labels)
      if (l.find(part) != std::string::npos) return true;
    return false;
  };
  for (const char* part : {"input_layernorm", "rotary q", "_residual", "loss: log_softmax",
                           "block_sparse_moe.router", "optimizer adamw"})
    EXPECT_TRUE(has(part)) << part;
  // Dispatch sends tokens * top_k rows of hidden bf16 elements; the cross-rank share is smaller.
  EXPECT_EQ(j["moe"][0]["dispatch_send_bytes"].get<std::uint64_t>(), 1024ull * 2 * 4096 * 2);
  EXPECT_LT(j["moe"][0]["dispatch_cross_rank_bytes"].get<std::uint64_t>(),
            j["moe"][0]["dispatch_send_bytes"].get<std::uint64_t>());
}

}  // namespace
}  // namespace collreplay
