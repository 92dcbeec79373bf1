// --experts grouped: every grouped GEMM (torch._grouped_mm) carries one row count per expert of
// the rank, from the routing (skew included), summing to the routed rows; the groups survive
// the schedule file and the calibration stretch, and FLOPs count each group's own rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <sstream>

#include "bench/compute/compute_scale.hpp"
#include "common/errors.hpp"
#include "tests/unit/models/hf_fixture.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"
#include "workloads/schedule_json.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {
namespace {

using test::hf_folder;

std::vector<GemmShape> grouped_gemms(const Schedule& s) {
  std::vector<GemmShape> out;
  for (const ScheduleOp& op : s.ops)
    if (!op.is_collective())
      for (const GemmShape& g : op.compute().gemms)
        if (!g.group_rows.empty()) out.push_back(g);
  return out;
}

WorkloadRequest qwen3_moe(int world, int ep, const std::string& routing) {
  WorkloadRequest q = test::request(hf_folder("Qwen3-30B-A3B"), world, "fsdp2");
  q.ep = ep;
  q.layers = 1;
  q.micro_batch = 2;
  q.seq = 1024;
  q.routing = routing;
  q.experts = "grouped";
  return q;
}

TEST(GroupedExperts, GroupsHoldEveryRoutedRowOfEveryExpert) {
  const Schedule s = build_schedule(qwen3_moe(1, 1, "uniform"));
  const std::vector<GemmShape> gemms = grouped_gemms(s);
  // gate_up and down: fwd, dgrad, wgrad each; activation checkpointing recomputes the fwd two.
  ASSERT_GE(gemms.size(), 6u);
  const std::int64_t routed = 2 * 1024 * 8;  // tokens x top-8
  for (const GemmShape& g : gemms) {
    EXPECT_EQ(g.batch, 128) << g.label;
    EXPECT_EQ(g.group_rows.size(), 128u) << g.label;
    EXPECT_EQ(grouped_rows_total(g), routed) << g.label;
    const std::int64_t mean_up = (routed + 127) / 128;
    EXPECT_EQ(g.group_k ? g.k : g.m, mean_up) << g.label;
    const std::int64_t fixed = g.group_k ? g.m : g.k;
    EXPECT_TRUE(fixed == 2048 || fixed == 768 * 2 || fixed == 768) << g.label << " " << fixed;
    EXPECT_DOUBLE_EQ(gemm_shape_flops(g), 2.0 * routed * g.n * fixed) << g.label;
  }
  EXPECT_TRUE(std::any_of(gemms.begin(), gemms.end(), [](const GemmShape& g) { return g.group_k; }));
}

TEST(GroupedExperts, LoopedAndGroupedExpertsDoTheSameFlops) {
  WorkloadRequest q = qwen3_moe(1, 1, "zipf:1.2");
  const Schedule grouped = build_schedule(q);
  q.experts = "looped";
  const Schedule looped = build_schedule(q);
  // One rank: the experts sit in their layer's unit, beside the same attention on both sides.
  const auto& g = test::unit(grouped, "layers.0");
  const auto& l = test::unit(looped, "layers.0");
  EXPECT_DOUBLE_EQ(g.fwd_flops, l.fwd_flops);
  EXPECT_DOUBLE_EQ(g.bwd_flops, l.bwd_flops);
}

TEST(GroupedExperts, SkewLengthensTheHotExpertsGroups) {
  const Schedule uniform = build_schedule(qwen3_moe(1, 1, "uniform"));
  const Schedule hot = build_schedule(qwen3_moe(1, 1, "hot:4"));
  const GemmShape u = grouped_gemms(uniform).front(), h = grouped_gemms(hot).front();
  EXPECT_EQ(grouped_rows_total(u), grouped_rows_total(h));
  const auto [umin, umax] = std::minmax_element(u.group_rows.begin(), u.group_rows.end());
  const auto [hmin, hmax] = std::minmax_element(h.group_rows.begin(), h.group_rows.end());
  EXPECT_GT(*hmax, 3 * *umax);  // 4 experts 8x as likely per pick
  EXPECT_LE(*hmin, *umin);
}

TEST(GroupedExperts, ExpertParallelRanksGroupTheirOwnExperts) {
  std::int64_t all_rows = 0;
  for (int rank = 0; rank < 4; ++rank) {
    WorkloadRequest q = qwen3_moe(4, 4, "uniform");
    q.rank = rank;
    const std::vector<GemmShape> gemms = grouped_gemms(build_schedule(q));
    ASSERT_FALSE(gemms.empty());
    EXPECT_EQ(gemms.front().batch, 32);  // 128 experts over 4 ranks
    all_rows += grouped_rows_total(gemms.front());
  }
  EXPECT_EQ(all_rows, 4 * 2 * 1024 * 8);  // every rank's tokens x top-8, each row run once
}

// torchtitan's indices_padding_wrapper: a zero row under the routed rows, then rows + 8 per
// local expert picked into the grouped GEMMs' input, and the same bound put back after them.
TEST(GroupedExperts, RowsArePaddedPerLocalExpertAsTorchtitanPadsThem) {
  const std::uint64_t hidden = 2048, bytes = 2;
  for (const int ep : {1, 4}) {
    WorkloadRequest q = qwen3_moe(ep, ep, "uniform");
    const Schedule s = build_schedule(q);
    const std::uint64_t rows = static_cast<std::uint64_t>(grouped_rows_total(grouped_gemms(s).front()));
    const std::uint64_t local = 128 / static_cast<std::uint64_t>(ep);
    const std::uint64_t padded_bytes = (rows + 8 * local) * hidden * bytes;
    int picks = 0, puts = 0, stacks = 0;
    for (const ScheduleOp& op : s.ops) {
      if (op.is_collective()) continue;
      for (const KernelSlice& k : op.compute().kernels) {
        if (k.label.find("x[permuted_indices] (padded rows)") != std::string::npos) {
          ++picks;
          EXPECT_EQ(k.write_bytes, padded_bytes) << "ep " << ep;
        }
        if (k.label.find("[permuted_indices] = out") != std::string::npos) {
          ++puts;
          EXPECT_EQ(k.write_bytes, padded_bytes) << "ep " << ep;
        }
        if (k.label.find("vstack with a zero row") != std::string::npos) {
          ++stacks;
          EXPECT_EQ(k.write_bytes, (rows + 1) * hidden * bytes) << "ep " << ep;
        }
      }
    }
    // Forward and its recompute under activation checkpointing.
    EXPECT_EQ(picks, 2) << "ep " << ep;
    EXPECT_EQ(puts, 2) << "ep " << ep;
    EXPECT_EQ(stacks, 2) << "ep " << ep;
  }
}

TEST(GroupedExperts, GroupsSurviveTheScheduleFile) {
  const Schedule s = build_schedule(qwen3_moe(1, 1, "hot:2"));
  const std::string text = schedule_to_json(s);
  EXPECT_NE(text.find("\"group_rows\""), std::string::npos);
  const Schedule back = schedule_from_json(text, "test");
  const std::vector<GemmShape> a = grouped_gemms(s), b = grouped_gemms(back);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].group_rows, b[i].group_rows);
    EXPECT_EQ(a[i].group_k, b[i].group_k);
    EXPECT_EQ(a[i].m, b[i].m);
    EXPECT_EQ(a[i].k, b[i].k);
  }
}

TEST(GroupedExperts, ABadGroupListIsOneLine) {
  const Schedule s = build_schedule(qwen3_moe(1, 1, "uniform"));
  const std::string text = schedule_to_json(s);
  const std::size_t at = text.find("\"group_rows\"");
  ASSERT_NE(at, std::string::npos);
  // One group fewer than batch.
  std::string fewer = text;
  const std::size_t open = fewer.find('[', at);
  const std::size_t comma = fewer.find(',', open);
  fewer.erase(open + 1, comma - open);
  EXPECT_THROW(schedule_from_json(fewer, "test"), UsageError);
  // A group_dim that is neither m nor k.
  std::string dim = text;
  const std::size_t d = dim.find("\"group_dim\": \"", at);
  ASSERT_NE(d, std::string::npos);
  dim.replace(d + 14, 1, "n");
  EXPECT_THROW(schedule_from_json(dim, "test"), UsageError);
}

TEST(GroupedExperts, OlderSchedulesWithoutGroupsStillLoad) {
  WorkloadRequest q = qwen3_moe(1, 1, "uniform");
  q.experts = "looped";
  Schedule s = build_schedule(q);
  s.schema_version = 6;
  const std::string text = schedule_to_json(s);
  ASSERT_NE(text.find("\"version\": 6"), std::string::npos);
  const Schedule back = schedule_from_json(text, "v6");
  EXPECT_TRUE(grouped_gemms(back).empty());
  EXPECT_EQ(back.ops.size(), s.ops.size());
}

TEST(GroupedExperts, TheCalibrationStretchScalesEveryGroup) {
  const GemmShape g = grouped_gemm({100, 0, 37, 300}, 0, 64, 32, false, "g");
  EXPECT_EQ(g.m, 110);  // 437 rows over 4 groups, rounded up
  ComputeOp op;
  op.gemms = {g};
  const std::vector<GemmShape> run = stretch_gemms(op, 1.5);
  ASSERT_EQ(run.size(), 2u);
  EXPECT_EQ(run[1].group_rows, (std::vector<std::int64_t>{50, 0, 19, 150}));
  EXPECT_EQ(run[1].m, 55);
  EXPECT_NEAR(gemm_shape_flops(run[1]) / gemm_shape_flops(g), 0.5, 0.01);
  const GemmShape w = grouped_gemm({8, 8}, 64, 32, 0, true, "w");
  EXPECT_TRUE(w.a_transposed);
  EXPECT_EQ(w.k, 8);
  EXPECT_EQ(w.m, 64);
  EXPECT_DOUBLE_EQ(gemm_shape_flops(w), 2.0 * 16 * 64 * 32);
  EXPECT_THROW(grouped_gemm({-1}, 0, 1, 1, false, "bad"), UsageError);
}

TEST(GroupedExperts, TheDryRunShowsTheGroups) {
  const Schedule s = build_schedule(qwen3_moe(1, 1, "uniform"));
  std::ostringstream table, slices;
  print_schedule_table(s, table);
  print_schedule_slices(s, slices);
  EXPECT_NE(table.str().find("#   grouped GEMMs   "), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("(up to 128 groups; rows per group "), std::string::npos);
  EXPECT_NE(slices.str().find("rows per group (m):"), std::string::npos);
  EXPECT_NE(slices.str().find("rows per group (k):"), std::string::npos);
  EXPECT_NE(slices.str().find("(sum 16384)"), std::string::npos);
  WorkloadRequest looped = qwen3_moe(1, 1, "uniform");
  looped.experts = "looped";
  std::ostringstream plain;
  print_schedule_table(build_schedule(looped), plain);
  EXPECT_EQ(plain.str().find("grouped GEMMs"), std::string::npos);
}

}  // namespace
}  // namespace collreplay
