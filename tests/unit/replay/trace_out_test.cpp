// replay --trace-out's events, without MPI: one rank's step of a hand-made HSDP-like schedule
// laid out as Chrome trace events, checked for what the viewers and the importer rely on (tracks,
// times, torch's collective fields), then read back by the trace importer: the same collectives,
// sizes, dtypes, groups and phases.
#include "bench/replay/trace_out/rank_timeline.hpp"

#include <gtest/gtest.h>

#include <map>

#include "bench/replay/trace_out/torch_comm_args.hpp"
#include "bench/replay/trace_out/trace_document.hpp"
#include "workloads/trace/trace_schedule.hpp"

namespace collreplay {
namespace {

using nlohmann::json;

ScheduleOp compute(const std::string& name, Phase phase, ComputeOp body) {
  ScheduleOp op;
  op.name = name;
  op.stream = StreamKind::compute;
  op.phase = phase;
  op.unit = "layers.0";
  op.body = std::move(body);
  return op;
}

ScheduleOp collective(const std::string& name, Phase phase, CollectiveKind kind, DType dtype,
                      GroupKind group, std::uint64_t bytes) {
  ScheduleOp op;
  op.name = name;
  op.phase = phase;
  op.unit = "layers.0";
  CollectiveOp c;
  c.kind = kind;
  c.dtype = dtype;
  c.group = group;
  c.bytes = bytes;
  op.body = c;
  return op;
}

// World 4 in shard groups of 2 (HSDP): gather on the world, reduce-scatter in the shard group,
// all-reduce across replicas, between forward, backward and optimizer compute.
Schedule hsdp_schedule() {
  Schedule s;
  s.model = "hand-made";
  s.plan = "hsdp";
  s.world = 4;
  s.gpus_per_node = 4;
  s.shard_group = 2;
  ComputeOp fwd;
  fwd.gemms = {{1024, 1024, 1024, 1, "q_proj fwd"}};
  KernelSlice norm;
  norm.kind = KernelKind::vector;
  norm.label = "rmsnorm fwd";
  norm.at = 1;
  norm.launches = 3;
  norm.read_bytes = norm.write_bytes = 1 << 20;
  fwd.kernels = {norm};
  fwd.host_us = 40;
  ComputeOp bwd;
  KernelSlice timed;
  timed.kind = KernelKind::timed;
  timed.label = "traced bwd kernel";
  timed.duration_us = 300;
  bwd.kernels = {timed};
  bwd.host_us = 20;
  ComputeOp opt;
  KernelSlice adam;
  adam.kind = KernelKind::vector;
  adam.label = "adamw";
  adam.read_bytes = 4 << 20;
  opt.kernels = {adam};
  s.ops = {collective("ag.0", Phase::forward, CollectiveKind::all_gather, DType::bf16,
                      GroupKind::world, 4 * 4096),
           compute("compute.fwd", Phase::forward, fwd),
           compute("compute.bwd", Phase::backward, bwd),
           collective("rs.0", Phase::backward, CollectiveKind::reduce_scatter, DType::f32,
                      GroupKind::shard, 2 * 8192),
           collective("ar.0", Phase::backward, CollectiveKind::all_reduce, DType::f32,
                      GroupKind::replicate, 8192),
           compute("compute.opt", Phase::optimizer, opt)};
  s.ops[3].deps = {2};
  s.ops[4].deps = {3};
  s.ops[5].deps = {4};
  return s;
}

RankStep step_of(const Schedule& s, int rank) {
  RankStep step;
  step.rank = rank;
  step.schedule = &s;
  // ms from the step's start, as the executor measures them.
  step.op_start_ms = {0.0, 0.5, 1.5, 2.0, 2.5, 3.0};
  step.op_end_ms = {0.4, 1.5, 2.0, 2.4, 2.9, 3.2};
  return step;
}

TEST(TraceOut, CollectivesCarryTorchFieldsAndTheirMeasuredTimes) {
  const Schedule s = hsdp_schedule();
  const RankTrace t = rank_trace(step_of(s, 1));
  std::vector<json> nccl;
  std::map<long long, int> launches;
  for (const json& e : t.events) {
    EXPECT_EQ(e["pid"], 1) << e.dump();
    if (e["ph"] == "X" && e["cat"] == "cuda_runtime") launches[e["args"]["correlation"]]++;
    if (e["ph"] == "X" && e["cat"] == "kernel" && e["args"].contains("Collective name"))
      nccl.push_back(e);
  }
  ASSERT_EQ(nccl.size(), 3u);
  EXPECT_EQ(nccl[0]["name"], "ncclDevKernel_AllGather");
  EXPECT_EQ(nccl[0]["args"]["Collective name"], "_allgather_base");
  // 16 KiB of bf16: 8192 elements gathered, 2048 of them each rank's part.
  EXPECT_EQ(nccl[0]["args"]["In msg nelems"], 2048);
  EXPECT_EQ(nccl[0]["args"]["Out msg nelems"], 8192);
  EXPECT_EQ(nccl[0]["args"]["dtype"], "BFloat16");
  EXPECT_EQ(nccl[0]["args"]["bytes"], 4 * 4096);
  EXPECT_EQ(nccl[0]["args"]["kind"], "all_gather");
  EXPECT_EQ(nccl[0]["args"]["Process Group Ranks"], "[0, 1, 2, 3]");
  EXPECT_DOUBLE_EQ(nccl[0]["ts"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(nccl[0]["dur"].get<double>(), 400);
  EXPECT_EQ(nccl[1]["args"]["Process Group Ranks"], "[0, 1]");  // rank 1's shard group
  EXPECT_EQ(nccl[1]["args"]["group"], "shard");
  EXPECT_EQ(nccl[1]["args"]["In msg nelems"], 4096);  // 16 KiB of f32, scattered over 2
  EXPECT_EQ(nccl[1]["args"]["Out msg nelems"], 2048);
  EXPECT_EQ(nccl[2]["args"]["Process Group Ranks"], "[1, 3]");  // its replica group
  EXPECT_EQ(nccl[2]["args"]["Collective name"], "allreduce");
  EXPECT_NE(nccl[0]["tid"], kComputeStreamTid);
  for (const json& k : nccl) EXPECT_EQ(launches[k["args"]["correlation"]], 1) << k.dump();
  EXPECT_EQ(t.process_groups.size(), 3u);
}

TEST(TraceOut, ComputeKernelsShareTheirOpsTimeWithLabels) {
  const Schedule s = hsdp_schedule();
  const RankTrace t = rank_trace(step_of(s, 0));
  std::vector<json> fwd;
  std::map<std::string, int> phases;
  std::map<int, std::string> threads;
  for (const json& e : t.events) {
    if (e["ph"] == "X" && e["cat"] == "kernel" && e["args"].value("op", "") == "compute.fwd")
      fwd.push_back(e);
    if (e["ph"] == "X" && e["cat"] == "phase") phases[e["name"]]++;
    if (e["ph"] == "M" && e["name"] == "thread_name") threads[e["tid"]] = e["args"]["name"];
  }
  ASSERT_EQ(fwd.size(), 2u);  // the GEMM, then the norm's three launches as one slice
  EXPECT_EQ(fwd[0]["name"], "q_proj fwd");
  EXPECT_EQ(fwd[1]["args"]["label"], "rmsnorm fwd");
  EXPECT_EQ(fwd[1]["args"]["launches"], 3);
  EXPECT_DOUBLE_EQ(fwd[0]["ts"].get<double>(), 500);
  EXPECT_NEAR(fwd[1]["ts"].get<double>() + fwd[1]["dur"].get<double>(), 1500, 1e-3);
  EXPECT_NEAR(fwd[0]["ts"].get<double>() + fwd[0]["dur"].get<double>(),
              fwd[1]["ts"].get<double>(), 1e-3);
  EXPECT_EQ(phases, (std::map<std::string, int>{{"forward", 1}, {"backward", 1}, {"optimizer", 1}}));
  // The GEMM as the aten op record_shapes writes, tied to its kernel.
  int aten = 0;
  for (const json& e : t.events)
    if (e["ph"] == "X" && e["cat"] == "cpu_op") {
      ++aten;
      EXPECT_EQ(e["name"], "aten::mm");
      EXPECT_EQ(e["args"]["Input Dims"], json::parse("[[1024, 1024], [1024, 1024]]"));
      EXPECT_EQ(e["args"]["External id"], fwd[0]["args"]["External id"]);
    }
  EXPECT_EQ(aten, 1);
  EXPECT_EQ(threads[kComputeStreamTid], "compute stream");
  EXPECT_EQ(threads[kPhaseTid], "phases");
  EXPECT_EQ(threads[kFirstCommStreamTid], "comm stream (world)");
}

TEST(TraceOut, TheImporterReadsItBack) {
  const Schedule s = hsdp_schedule();
  const TraceOutRun run{s.model, s.plan, "nccl", "engine", 4, {"gpu0", "gpu1", "gpu2", "gpu3"}};
  const json doc = rank_document(rank_trace(step_of(s, 1)), 1, run);
  EXPECT_EQ(doc["distributedInfo"]["rank"], 1);
  EXPECT_EQ(doc["distributedInfo"]["world_size"], 4);
  EXPECT_EQ(doc["displayTimeUnit"], "ms");
  const trace::TraceImport back =
      trace::trace_to_schedule(trace::parse_trace(doc.dump(), "out.json"), true);
  EXPECT_EQ(back.schedule.world, 4);
  EXPECT_EQ(back.device, "gpu1");
  std::vector<const ScheduleOp*> theirs;
  for (const ScheduleOp& op : back.schedule.ops)
    if (op.is_collective()) theirs.push_back(&op);
  std::vector<const ScheduleOp*> ours;
  for (const ScheduleOp& op : s.ops)
    if (op.is_collective()) ours.push_back(&op);
  ASSERT_EQ(theirs.size(), ours.size());
  for (std::size_t i = 0; i < ours.size(); ++i) {
    const CollectiveOp &a = ours[i]->collective(), &b = theirs[i]->collective();
    EXPECT_EQ(a.kind, b.kind) << i;
    EXPECT_EQ(a.bytes, b.bytes) << i;
    EXPECT_EQ(a.dtype, b.dtype) << i;
    // The same ranks (the importer names any mesh group by its size and stride).
    EXPECT_EQ(group_members(s, a, 1, {}), group_members(back.schedule, b, 1, {})) << i;
    EXPECT_EQ(ours[i]->phase, theirs[i]->phase) << i;
  }
  // The host time the schedule paced comes back with the compute, and the optimizer's ops are
  // the optimizer's again.
  double host_us = 0;
  bool optimizer = false;
  for (const ScheduleOp& op : back.schedule.ops)
    if (!op.is_collective()) {
      host_us += op.compute().host_us;
      optimizer = optimizer || op.phase == Phase::optimizer;
    }
  EXPECT_NEAR(host_us, 60, 0.2);  // and a hundredth of a microsecond per launch
  EXPECT_TRUE(optimizer);
}

// Broadcast with its root, uneven all-to-all with its splits, send and recv with their peer on a
// strided group, an all-reduce on another: each comes back as it went.
TEST(TraceOut, EveryKindTheImporterKnowsComesBack) {
  Schedule s = hsdp_schedule();
  s.shard_group = 0;
  ScheduleOp bcast = collective("bc", Phase::forward, CollectiveKind::broadcast, DType::bf16,
                                GroupKind::world, 8192);
  std::get<CollectiveOp>(bcast.body).root = 2;
  ScheduleOp a2av = collective("a2av", Phase::forward, CollectiveKind::all_to_allv, DType::bf16,
                               GroupKind::world, 2 * (1 + 2 + 3 + 4));
  std::get<CollectiveOp>(a2av.body).send_counts = {1, 2, 3, 4};
  std::get<CollectiveOp>(a2av.body).recv_counts = {4, 3, 2, 1};
  auto strided = [](ScheduleOp op, int size, int stride, int peer) {
    CollectiveOp& c = std::get<CollectiveOp>(op.body);
    c.group_size = size;
    c.group_stride = stride;
    c.peer = peer;
    return op;
  };
  s.ops = {bcast,
           a2av,
           strided(collective("send", Phase::forward, CollectiveKind::send, DType::bf16,
                              GroupKind::strided, 4096),
                   2, 2, 1),
           strided(collective("recv", Phase::forward, CollectiveKind::recv, DType::bf16,
                              GroupKind::strided, 4096),
                   2, 2, 1),
           strided(collective("ar", Phase::forward, CollectiveKind::all_reduce, DType::f32,
                              GroupKind::strided, 1024),
                   2, 1, -1),
           compute("compute.fwd", Phase::forward, s.ops[1].compute())};
  RankStep step;
  step.schedule = &s;
  step.op_start_ms = {0.0, 0.1, 0.2, 0.2, 0.3, 0.4};
  step.op_end_ms = {0.1, 0.2, 0.3, 0.3, 0.4, 0.6};
  const TraceOutRun run{s.model, s.plan, "nccl", "engine", 4, {}};
  const trace::TraceImport back = trace::trace_to_schedule(
      trace::parse_trace(rank_document(rank_trace(step), 0, run).dump(), "kinds.json"), true);
  std::vector<CollectiveOp> theirs;
  for (const ScheduleOp& op : back.schedule.ops)
    if (op.is_collective()) theirs.push_back(op.collective());
  ASSERT_EQ(theirs.size(), 5u);
  for (std::size_t i = 0; i < theirs.size(); ++i) {
    const CollectiveOp& a = s.ops[i].collective();
    const CollectiveOp& b = theirs[i];
    EXPECT_EQ(a.kind, b.kind) << i;
    EXPECT_EQ(a.bytes, b.bytes) << i;
    EXPECT_EQ(a.dtype, b.dtype) << i;
    EXPECT_EQ(group_members(s, a, 0, {}), group_members(back.schedule, b, 0, {})) << i;
  }
  EXPECT_EQ(theirs[0].root, 2);
  EXPECT_EQ(theirs[1].send_counts, (std::vector<std::uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(theirs[1].recv_counts, (std::vector<std::uint64_t>{4, 3, 2, 1}));
  EXPECT_EQ(theirs[2].peer, 1);
  EXPECT_EQ(theirs[3].peer, 1);
}

TEST(TraceOut, MergedFileKeepsRankZeroForTheImporter) {
  const Schedule s = hsdp_schedule();
  const TraceOutRun run{s.model, s.plan, "mpi", "engine", 2, {"a", "b"}};
  const json doc = merged_document({rank_trace(step_of(s, 0)), rank_trace(step_of(s, 1))}, run);
  int rank1_kernels = 0, hidden = 0;
  for (const json& e : doc["traceEvents"]) {
    if (e["pid"] == 1 && e.value("cat", "") == "kernel") ++rank1_kernels;
    if (e["pid"] == 1 && e.value("cat", "") == "kernel@rank1") ++hidden;
  }
  EXPECT_EQ(rank1_kernels, 0);
  EXPECT_GT(hidden, 0);
  const trace::TraceEvents back = trace::parse_trace(doc.dump(), "merged.json");
  EXPECT_EQ(back.rank, 0);
  int collectives = 0;
  for (const trace::GpuWork& w : back.gpu) collectives += w.collective ? 1 : 0;
  EXPECT_EQ(collectives, 3);  // rank 0's alone
}

TEST(TraceOut, TorchNamesOfEveryKind) {
  for (CollectiveKind k : collective_kinds()) EXPECT_NE(torch_collective_name(k), "unknown");
  EXPECT_EQ(torch_dtype_name(DType::f16), "Half");
  EXPECT_EQ(torch_rank_list({3, 7}), "[3, 7]");
}

}  // namespace
}  // namespace collreplay
