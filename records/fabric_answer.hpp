// The one answer to "does this model need fabric A, or will fabric B do?": per node count, fabric
// B's whole-job tokens/s as a fraction of fabric A's, each at its best layout that fits, both
// layouts named, with the interval; and, labelled apart, the like-for-like ratio (A's best layout
// run on B). `project` and `advise` compute it (bench/project/fabrics/fabric_answer.hpp) and write
// it as a `fabric_comparison` record; every program prints it through the functions below, from the
// record, so the answer reads the same in a terminal, in report.md and in the demo's headline.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collreplay::records {

// What the answer assumed; a change to any of them can change the answer, so it is printed with it.
struct AnswerAssumptions {
  std::string compute;           // "model:h100" (the GPU and MFU the compute is timed at)
  std::string optimizer_states;  // "plan" | "fp32"
  std::string fsdp;              // the FSDP implementation the FSDP layouts use: fsdp1 | fsdp2
  std::int64_t micro_batch = 1, seq = 0;
  int gpus_per_node = 8;
};

struct FabricAnswer {
  std::string model;
  int nodes = 1;
  std::string fabric_a, fabric_b;
  AnswerAssumptions assumptions;
  // Each fabric's best layout that fits ("tp2+hsdp", "hsdp+recompute"); empty when none fits.
  std::string layout_a, layout_b;
  std::optional<double> tokens_per_s_a, tokens_per_s_b;  // whole job, at those layouts
  // tokens_per_s_b / tokens_per_s_a, and its interval (each side's comm-time band); nullopt unless
  // both fit.
  std::optional<double> ratio, ratio_lo, ratio_hi;
  // Like for like: layout_a run on fabric B, over layout_a on A; nullopt when it does not fit B.
  std::optional<double> same_layout_ratio;
};

nlohmann::json answer_json(const FabricAnswer& answer);  // record "fabric_comparison"
// The answer a `fabric_comparison` record holds; nullopt for another record or one that lacks
// the fields (an older build's record).
std::optional<FabricAnswer> answer_of(const nlohmann::json& record);

// One line: "8 nodes: eth-100g gives 0.075 [0.060, 0.090] of ib-ndr-8x400's tokens/s (best
// layouts: tp2+hsdp on ib-ndr-8x400, hsdp+recompute on eth-100g); like for like, tp2+hsdp on
// both: 0.052".
std::string answer_line(const FabricAnswer& answer);
// The assumptions in words: "compute model:h100, optimizer states plan, fsdp1, micro-batch 1 x
// seq 2048, 8 GPUs/node".
std::string assumptions_words(const AnswerAssumptions& assumptions);

// One model's answers (one per node count, same fabrics) as a table: the heading line naming the
// question and the assumptions, then a row per node count. Plain text for a terminal, Markdown
// for report.md: the same cells.
std::string answer_table_text(const std::vector<FabricAnswer>& answers);
std::string answer_table_markdown(const std::vector<FabricAnswer>& answers);

}  // namespace collreplay::records
