#include "bench/project/fabrics/fabric_answer.hpp"

#include <algorithm>
#include <set>
#include <utility>
#include <sstream>

#include "common/errors.hpp"
#include "workloads/model/model.hpp"

namespace collreplay::project {
namespace {

// Whole-job tokens/s at the ends of the row's comm-time band: the faster comm (lo) gives the more.
struct TokensBand {
  double at_slow_comm = 0, at_fast_comm = 0;
};

TokensBand tokens_band(const ProjectionRow& row) {
  const auto at = [&](double exposed_ms) {
    const double step_ms = row.compute_step_ms + exposed_ms;
    return step_ms > 0 ? row.tokens_per_s * row.step_ms / step_ms : 0.0;
  };
  return {at(row.exposed_hi_ms), at(row.exposed_lo_ms)};
}

// The ratio's interval. Two fabrics whose bands come from one fit (nominal profiles: the intra
// fit's band alone) err together, so both steps move to the same end of it; fits of their own
// err independently, so the interval spans the opposite ends.
std::pair<double, double> ratio_interval(const TokensBand& a, const TokensBand& b, bool shared) {
  if (a.at_slow_comm <= 0 || a.at_fast_comm <= 0) return {0, 0};
  if (!shared) return {b.at_slow_comm / a.at_fast_comm, b.at_fast_comm / a.at_slow_comm};
  const double slow = b.at_slow_comm / a.at_slow_comm, fast = b.at_fast_comm / a.at_fast_comm;
  return {std::min(slow, fast), std::max(slow, fast)};
}

}  // namespace


std::vector<std::string> split_fabrics(const std::string& text) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  std::stringstream list(text);
  std::string name;
  while (std::getline(list, name, ',')) {
    if (name.empty()) throw UsageError("--fabric '" + text + "': an empty fabric name");
    if (!seen.insert(name).second)
      throw UsageError("--fabric '" + text + "': '" + name + "' is named twice");
    names.push_back(name);
  }
  if (names.empty()) throw UsageError("--fabric PROFILE|RESULTS_DIR is required");
  return names;
}

std::string answer_fsdp(const WorkloadRequest& request) {
  return request.plan == "fsdp2" ? "fsdp2" : "fsdp1";
}

std::vector<records::FabricAnswer> answers_from_rankings(
    const std::vector<LabelledFabric>& fabrics,
    const std::vector<std::vector<RankedLayout>>& rankings, const std::string& model, int nodes,
    const records::AnswerAssumptions& assumptions, const IntervalCalibration& scaling) {
  std::vector<records::FabricAnswer> answers;
  const RankedLayout* best_a = best_layout(rankings.front());
  for (std::size_t f = 1; f < fabrics.size(); ++f) {
    records::FabricAnswer answer;
    answer.model = model;
    answer.nodes = nodes;
    answer.fabric_a = fabrics.front().label;
    answer.fabric_b = fabrics[f].label;
    answer.assumptions = assumptions;
    const RankedLayout* best_b = best_layout(rankings[f]);
    if (best_a) {
      answer.layout_a = best_a->name();
      answer.tokens_per_s_a = best_a->projection->tokens_per_s;
      const RankedLayout* like = same_layout(rankings[f], *best_a);
      if (like && like->fits && *answer.tokens_per_s_a > 0)
        answer.same_layout_ratio = like->projection->tokens_per_s / *answer.tokens_per_s_a;
    }
    if (best_b) {
      answer.layout_b = best_b->name();
      answer.tokens_per_s_b = best_b->projection->tokens_per_s;
    }
    if (best_a && best_b && *answer.tokens_per_s_a > 0) {
      answer.ratio = *answer.tokens_per_s_b / *answer.tokens_per_s_a;
      const auto [lo, hi] =
          ratio_interval(tokens_band(*best_a->projection), tokens_band(*best_b->projection),
                         fabrics.front().band_source == fabrics[f].band_source);
      const double wa =
          scaling_halfwidth_from_one_node(scaling, nodes, fabrics.front().measured_max_nodes);
      const double wb =
          scaling_halfwidth_from_one_node(scaling, nodes, fabrics[f].measured_max_nodes);
      if (lo > 0 && wa < 1) {
        answer.ratio_lo = std::min(lo, *answer.ratio) * std::max(0.0, 1 - wb) / (1 + wa);
        answer.ratio_hi = std::max(hi, *answer.ratio) * (1 + wb) / (1 - wa);
      }
    }
    answers.push_back(std::move(answer));
  }
  return answers;
}

std::vector<std::vector<records::FabricAnswer>> answer_fabrics(
    const WorkloadRequest& base, const std::vector<LabelledFabric>& fabrics,
    const std::vector<int>& node_counts, const records::AnswerAssumptions& assumptions,
    const IntervalCalibration& scaling) {
  std::vector<std::vector<records::FabricAnswer>> answers(fabrics.size() - 1);
  if (fabrics.size() < 2) return answers;
  std::vector<ProjectionInputs> inputs;
  for (const LabelledFabric& f : fabrics) inputs.push_back(f.inputs);
  WorkloadRequest request = base;
  request.plan = answer_fsdp(base);
  const ModelConfig model = load_model(base.model, base.catalog_dir);
  for (int nodes : node_counts) {
    const auto rankings = rank_layouts(candidate_layouts(request, model, nodes), nodes, inputs);
    const auto at_nodes =
        answers_from_rankings(fabrics, rankings, base.model, nodes, assumptions, scaling);
    for (std::size_t f = 0; f < at_nodes.size(); ++f) answers[f].push_back(at_nodes[f]);
  }
  return answers;
}

}  // namespace collreplay::project
