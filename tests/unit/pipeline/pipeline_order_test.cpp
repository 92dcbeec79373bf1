// The pipeline schedules' order, counted by hand for small pipelines: which compute runs when,
// which sends and receives travel in one batch, and what each compute waits for; and that every
// pair of neighbouring stages sends and receives the same micro-batches in the same order.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

#include "common/errors.hpp"
#include "workloads/plan/pipeline/pipeline_order.hpp"

namespace collreplay {
namespace {

using Kind = PipeAction::Kind;

PipelinePlan plan(int pp, int m, PipeScheduleKind kind = PipeScheduleKind::one_f_one_b,
                  int v = 1) {
  PipelinePlan p;
  p.pp = pp;
  p.micro_batches = m;
  p.kind = kind;
  p.virtual_stages = v;
  return p;
}

// "F0 F1 B0 ...": the compute actions of a rank (with "sF0" style stage prefixes when V > 1).
std::string compute_order(const PipelinePlan& p, int rank) {
  std::string out;
  for (const PipeAction& a : pipeline_actions(p, rank))
    if (a.kind == Kind::forward || a.kind == Kind::backward)
      out += (out.empty() ? "" : " ") + action_name(p, rank, a);
  return out;
}

// Every action of a rank as torch names it, each batch in brackets, a compute's waits after "<".
std::string full_order(const PipelinePlan& p, int rank) {
  const std::vector<PipeAction> actions = pipeline_actions(p, rank);
  std::string out;
  int open = -1;
  for (const PipeAction& a : actions) {
    const bool joins = a.is_p2p() && a.batch == open;
    if (open >= 0 && !joins) out += "]";
    out += joins ? " " : a.is_p2p() ? " [" : " ";
    open = a.is_p2p() ? a.batch : -1;
    out += action_name(p, rank, a);
    for (std::size_t i = 0; i < a.waits.size(); ++i)
      out += (i ? "," : "<") + action_name(p, rank, actions[static_cast<std::size_t>(a.waits[i])]);
  }
  return out + (open >= 0 ? "]" : "");
}

TEST(PipelineOrder, OneFOneBTwoStagesFourMicroBatches) {
  const PipelinePlan p = plan(2, 4);
  // torch's Schedule1F1B: stage s warms up with min(M, pp - s) forwards.
  EXPECT_EQ(compute_order(p, 0), "0F0 0F1 0B0 0F2 0B1 0F3 0B2 0B3");
  EXPECT_EQ(compute_order(p, 1), "1F0 1B0 1F1 1B1 1F2 1B2 1F3 1B3");
  // Stage 0: the first send fired alone and waited after the next forward; the warm-up's last
  // send fused with the first backward's receive, waited by that backward; a backward's
  // receive fused with the previous forward's send afterwards.
  EXPECT_EQ(full_order(p, 0),
            " 0F0 [0SEND_F0] 0F1 [0SEND_F1 0RECV_B0] 0B0<0SEND_F0,0SEND_F1,0RECV_B0 0F2 [0SEND_F2 "
            "0RECV_B1] 0B1<0SEND_F2,0RECV_B1 0F3 [0SEND_F3 0RECV_B2] 0B2<0SEND_F3,0RECV_B2 "
            "[0RECV_B3] 0B3<0RECV_B3 0REDUCE_GRAD END");
  // Stage 1 (last): a backward's send fused with the next forward's receive.
  EXPECT_EQ(full_order(p, 1),
            " [1RECV_F0] 1F0<1RECV_F0 1B0 [1SEND_B0 1RECV_F1] 1F1<1SEND_B0,1RECV_F1 1B1 [1SEND_B1 "
            "1RECV_F2] 1F2<1SEND_B1,1RECV_F2 1B2 [1SEND_B2 1RECV_F3] 1F3<1SEND_B2,1RECV_F3 1B3 "
            "[1SEND_B3] 1REDUCE_GRAD<1SEND_B3 END");
}

TEST(PipelineOrder, GPipeRunsEveryForwardFirst) {
  const PipelinePlan p = plan(2, 4, PipeScheduleKind::gpipe);
  EXPECT_EQ(compute_order(p, 0), "0F0 0F1 0F2 0F3 0B0 0B1 0B2 0B3");
  EXPECT_EQ(compute_order(p, 1), "1F0 1F1 1F2 1F3 1B0 1B1 1B2 1B3");
  // The first backward waits for every forward send, and for its gradient.
  const std::string order = full_order(p, 0);
  EXPECT_NE(order.find("0B0<0SEND_F0,0SEND_F1,0SEND_F2,0SEND_F3,0RECV_B0"), std::string::npos)
      << order;
}

TEST(PipelineOrder, InterleavedFollowsMegatronsChunkOrder) {
  // 2 ranks x 2 chunks, 4 micro-batches: warm-up 2 x (pp - 1 - rank) + (V - 1) x pp forwards.
  const PipelinePlan p = plan(2, 4, PipeScheduleKind::interleaved, 2);
  EXPECT_EQ(compute_order(p, 0), "0F0 0F1 2F0 2F1 0F2 2B0 0F3 2B1 2F2 0B0 2F3 0B1 2B2 2B3 0B2 0B3");
  EXPECT_EQ(compute_order(p, 1), "1F0 1F1 3F0 3B0 3F1 3B1 1F2 1B0 1F3 1B1 3F2 3B2 3F3 3B3 1B2 1B3");
}

TEST(PipelineOrder, NeighboursExchangeTheSameMicroBatchesInOrder) {
  for (const PipelinePlan& p :
       {plan(2, 4), plan(4, 4), plan(4, 7), plan(3, 5, PipeScheduleKind::gpipe),
        plan(4, 8, PipeScheduleKind::interleaved, 2), plan(2, 4, PipeScheduleKind::interleaved, 3),
        plan(8, 16, PipeScheduleKind::interleaved, 5)}) {
    // (from stage, to stage, gradient?) -> micro-batches in the order sent / received
    std::map<std::tuple<int, int, bool>, std::vector<int>> sent, received;
    for (int r = 0; r < p.pp; ++r)
      for (const PipeAction& a : pipeline_actions(p, r)) {
        if (!a.is_p2p()) continue;
        const int here = p.stage_of(r, a.chunk), there = peer_stage(p, r, a);
        if (a.kind == Kind::send)
          sent[{here, there, a.gradient}].push_back(a.mb);
        else
          received[{there, here, a.gradient}].push_back(a.mb);
      }
    EXPECT_EQ(sent, received) << pipe_schedule_name(p) << " pp " << p.pp;
    // Every stage but the last sends each micro-batch forward once, every stage but the first
    // each gradient back once.
    EXPECT_EQ(sent.size(), static_cast<std::size_t>(2 * (p.stage_count() - 1)));
    for (const auto& [key, mbs] : sent) EXPECT_EQ(mbs.size(), static_cast<std::size_t>(p.micro_batches));
  }
}

TEST(PipelineOrder, EveryMicroBatchRunsOncePerStageForwardBeforeBackward) {
  const PipelinePlan p = plan(4, 8, PipeScheduleKind::interleaved, 2);
  for (int r = 0; r < p.pp; ++r) {
    std::map<std::pair<int, int>, int> seen;  // (chunk, mb) -> 1 after F, 2 after B
    for (const PipeAction& a : pipeline_actions(p, r)) {
      const std::pair<int, int> key{a.chunk, a.mb};
      if (a.kind == Kind::forward) EXPECT_EQ(seen[key]++, 0);
      if (a.kind == Kind::backward) EXPECT_EQ(seen[key]++, 1);
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(p.virtual_stages * p.micro_batches));
  }
}

}  // namespace
}  // namespace collreplay
