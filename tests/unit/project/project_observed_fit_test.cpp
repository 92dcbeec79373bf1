// The observed fit: on rows made by known step terms it finds parameters that reproduce them and
// predicts a model's rows it never saw at those node counts; rows it cannot fit from are refused.
#include <gtest/gtest.h>

#include "bench/project/observed/observed_fit.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

WorkloadRequest plan() {
  WorkloadRequest r;
  r.seq = 1024;
  return r;
}

FabricModel intra_tier() {
  FabricModel m;
  m.base_us = 5;
  m.intra = TierParams{0, 300, 0, 1};
  return m;
}

ObservedParams truth() {
  ObservedParams p;
  p.terms.compute_scale = 1.25;
  p.terms.inter_overhead_ms = 0.3;
  p.terms.compute_slowdown = 0.3;
  p.terms.link_spread = 0.2;
  p.inter_gbyte_s = 150;
  return p;
}

// A row of `model` at `nodes` whose throughput is what `truth()` gives.
ObservedCase made_row(const std::string& model, std::int64_t micro_batch, int nodes) {
  ObservedRow row{model, micro_batch, 1024, nodes, 8, "synthetic", 1, nodes};
  const ComputeSource compute = parse_compute("model:h100@0.5", plan());
  ObservedCase c = prepare_case(row, plan(), compute);
  NormalMaxima maxima;
  c.observed_step_ms =
      case_step_ms(c, with_inter_tier(intra_tier(), truth()), truth().terms, maxima);
  c.row.tokens_per_s_per_gpu = tokens_per_s_per_gpu(c, c.observed_step_ms);
  return c;
}

TEST(ProjectObservedFit, ReproducesItsRowsAndPredictsAnUnseenModel) {
  std::vector<ObservedCase> cases;
  for (int nodes : {1, 2, 4, 8, 16}) cases.push_back(made_row("qwen2.5-0.5b", 2, nodes));
  cases.push_back(made_row("qwen2.5-1.5b", 1, 2));
  const StepTerms fixed;
  const ObservedFit fit = fit_observed(cases, intra_tier(), fixed, "synthetic");
  EXPECT_LT(fit.best.rms, 0.003);
  ASSERT_EQ(fit.predicted_step_ms.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i)
    EXPECT_NEAR(fit.predicted_step_ms[i] / cases[i].observed_step_ms, 1, 0.01) << i;
  EXPECT_FALSE(fit.plausible.empty());
  for (const ObservedParams& p : fit.plausible) EXPECT_LE(p.rms, kObservedNoiseFloor);
  // The compute scale comes from the 1-node row alone.
  EXPECT_NEAR(fit.best.terms.compute_scale, 1.25, 0.25);

  // Qwen2.5-1.5B beyond the one node count it was fitted at.
  NormalMaxima maxima;
  for (int nodes : {8, 32}) {
    const ObservedCase held = made_row("qwen2.5-1.5b", 1, nodes);
    const double predicted = predict_case_ms(fit, fit.best, held, maxima);
    EXPECT_NEAR(predicted / held.observed_step_ms, 1, 0.03) << nodes << " nodes";
    double lo = predicted, hi = predicted;
    for (const ObservedParams& p : fit.plausible) {
      lo = std::min(lo, predict_case_ms(fit, p, held, maxima));
      hi = std::max(hi, predict_case_ms(fit, p, held, maxima));
    }
    EXPECT_LE(lo, held.observed_step_ms * 1.001);
    EXPECT_GE(hi, held.observed_step_ms * 0.999);
  }
}

TEST(ProjectObservedFit, RefusesRowsItCannotFitFrom) {
  const StepTerms fixed;
  std::vector<ObservedCase> no_single{made_row("qwen2.5-0.5b", 2, 2),
                                      made_row("qwen2.5-0.5b", 2, 4)};
  EXPECT_THROW(fit_observed(no_single, intra_tier(), fixed, "x"), UsageError);
  std::vector<ObservedCase> one_count{made_row("qwen2.5-0.5b", 2, 1),
                                      made_row("qwen2.5-0.5b", 2, 4),
                                      made_row("qwen2.5-1.5b", 1, 4)};
  try {
    fit_observed(one_count, intra_tier(), fixed, "x");
    ADD_FAILURE() << "one multi-node count cannot separate the terms";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("1 node count"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace collreplay::project
