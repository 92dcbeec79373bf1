#include "plots/report/step_table.hpp"

#include <algorithm>
#include <map>

#include "plots/report/markdown_numbers.hpp"

namespace collreplay::plots {
namespace {

// The parallel plan of a step record in words: "fsdp2", "fsdp2 hsdp 2x2", "fsdp2 ep 2", "ddp".
// Older records carry neither shard_group nor ep: one shard group of every rank, no EP.
std::string plan_of(const nlohmann::json& r) {
  std::string plan = text_at(r, "plan").value_or("?");
  const int world = static_cast<int>(number_at(r, "world").value_or(1));
  const int shard = static_cast<int>(number_at(r, "shard_group").value_or(world));
  const int ep = static_cast<int>(number_at(r, "ep").value_or(1));
  if (plan != "ddp" && shard > 0 && shard < world)
    plan += " hsdp " + std::to_string(world / shard) + "x" + std::to_string(shard);
  if (ep > 1) plan += " ep " + std::to_string(ep);
  return plan;
}

// What makes two step records the same training step (model, plan with its shard group and EP
// degree, world, micro-batch, seq, fabric, nodes); the optimizer pairs rows within it.
std::string step_key(const nlohmann::json& r) {
  return text_at(r, "model").value_or("?") + "|" + plan_of(r) + "|" +
         optional_fixed(r, "world", 0) + "|" + optional_fixed(r, "micro_batch", 0) + "|" +
         optional_fixed(r, "seq", 0) + "|" + fabric_of(r) + "|" + std::to_string(nodes_of(r));
}

bool is_reference(const Record* r) {
  return text_at(r->data, "source").value_or("replay") == "reference";
}

// The AdamW a record asked for, in replay's words (the reference's default is replay's auto).
std::string asked_optimizer(const Record* r) {
  static const std::map<std::string, std::string> replay_name = {
      {"default", "auto"}, {"foreach", "adamw-foreach"}, {"fused", "adamw-fused"},
      {"loop", "adamw-loop"}};
  if (!is_reference(r)) return text_at(r->data, "optimizer_asked").value_or("");
  const std::string asked = text_at(r->data, "optimizer").value_or("");
  const auto it = replay_name.find(asked);
  return it == replay_name.end() ? "" : it->second;
}

std::string optimizer_cell(const nlohmann::json& r) {
  const bool reference = text_at(r, "source").value_or("replay") == "reference";
  const auto asked = text_at(r, reference ? "optimizer" : "optimizer_asked");
  const auto ran = text_at(r, reference ? "optimizer_impl" : "optimizer");
  if (!asked && !ran) return "-";
  return asked.value_or("?") + (ran ? " (" + *ran + ")" : "");
}

// Steps in first-seen order of their keys; within a key each reference is followed by the replay
// that asked for the same AdamW (else the next unpaired replay), then the replays left.
std::vector<const Record*> side_by_side(const std::vector<const Record*>& steps) {
  std::vector<std::string> keys;
  std::map<std::string, std::vector<const Record*>> by_key;
  for (const Record* s : steps) {
    const std::string key = step_key(s->data);
    if (by_key.find(key) == by_key.end()) keys.push_back(key);
    by_key[key].push_back(s);
  }
  std::vector<const Record*> out;
  for (const std::string& key : keys) {
    std::vector<const Record*> replays;
    for (const Record* s : by_key[key])
      if (!is_reference(s)) replays.push_back(s);
    std::vector<bool> used(replays.size(), false);
    for (const Record* s : by_key[key]) {
      if (!is_reference(s)) continue;
      out.push_back(s);
      std::size_t pick = replays.size();
      for (std::size_t i = 0; i < replays.size() && pick == replays.size(); ++i)
        if (!used[i] && asked_optimizer(replays[i]) == asked_optimizer(s)) pick = i;
      for (std::size_t i = 0; i < replays.size() && pick == replays.size(); ++i)
        if (!used[i]) pick = i;
      if (pick < replays.size()) {
        used[pick] = true;
        out.push_back(replays[pick]);
      }
    }
    for (std::size_t i = 0; i < replays.size(); ++i)
      if (!used[i]) out.push_back(replays[i]);
  }
  return out;
}

}  // namespace

void step_table(std::ostream& md, const std::vector<Record>& records) {
  const auto steps = side_by_side(of_kind(records, "step"));
  if (steps.empty()) return;
  // The real-training reference (sweeps/gpu/reference/) writes step records with replay's field
  // names and source "reference": each sits just above the replay of the same step.
  md << "## Step summary (ms; the slowest rank sets the step)\n\n"
     << "fwd+bwd is the compute-only forward + backward (the reference's own above one rank: its "
        "ranks on meshes of one, no collective); exposed comm = overlapped - compute.\n\n"
     << "| source | model | plan | AdamW asked (ran) | fabric | transport | nodes | ranks | fwd+bwd "
        "| optimizer | compute | comm | overlapped | exposed comm | overlap efficiency | tokens/s | "
        "MFU |\n|---|---|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  for (const Record* s : steps) {
    const nlohmann::json& r = s->data;
    const auto mfu = number_at(r, "mfu");
    const bool reference_above_one = number_at(r, "compute_only_fwd_bwd_ms").has_value();
    md << "| " << text_at(r, "source").value_or("replay") << " | "
       << text_at(r, "model").value_or("?") << " | " << plan_of(r) << " | " << optimizer_cell(r)
       << " | " << fabric_of(r)
       << " | " << transport_of(r) << " | " << nodes_of(r) << " | "
       << optional_fixed(r, "world", 0) << " | "
       << optional_fixed(r, reference_above_one ? "compute_only_fwd_bwd_ms" : "fwd_bwd_ms", 1)
       << " | " << optional_fixed(r, "optimizer_ms", 1) << " | "
       << optional_fixed(r, "compute_ms", 1) << " | " << optional_fixed(r, "comm_ms", 1) << " | "
       << optional_fixed(r, "overlapped_ms", 1) << " | "
       << optional_fixed(r, "exposed_comm_ms", 1) << " | "
       << optional_fixed(r, "overlap_efficiency", 3) << " | "
       << optional_fixed(r, "tokens_per_s", 0) << " | " << (mfu ? fixed(*mfu * 100, 1) + "%" : "-")
       << " |\n";
  }
  md << "\n";
}

}  // namespace collreplay::plots
