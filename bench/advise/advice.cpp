#include "bench/advise/advice.hpp"

#include <algorithm>

#include "common/errors.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay::advise {
namespace {

using project::gib_text;

std::string too_big(const MemoryPerGpu& m, const project::MemoryBudget& budget) {
  return "needs " + gib_text(m.total_bytes()) + " per GPU of " + gib_text(budget.usable_bytes()) +
         " usable (parameters " + gib_text(m.params_bytes) + ", gradients " +
         gib_text(m.grads_bytes) + ", optimizer states " + gib_text(m.optimizer_bytes) +
         ", gathered units " + gib_text(m.gathered_bytes) + ", activations " +
         gib_text(m.activations_bytes) + ")";
}

// The layout's step as `project` projects it (the same inputs give the same row), memory
// included.
Advice weigh(const Layout& layout, bool recompute, const AdviceInputs& in,
             project::NormalMaxima& maxima) {
  Advice a;
  a.layout = layout;
  a.recompute = recompute;
  a.layout.request.activation_checkpointing = recompute;
  project::ProjectionInputs projection = in.projection;
  projection.request = a.layout.request;
  a.projection = project::project_schedule(projection, build_schedule(a.layout.request), in.nodes,
                                           maxima);
  a.memory = a.projection->memory;
  a.fits = a.projection->fits;
  if (!a.fits) a.reason = too_big(*a.memory, projection.memory->budget);
  return a;
}

}  // namespace

std::vector<Advice> advise_layouts(const std::vector<Layout>& layouts, const AdviceInputs& in) {
  if (!in.projection.memory) throw RuntimeError("advise: no memory limit to weigh layouts against");
  std::vector<Advice> all;
  project::NormalMaxima maxima;
  for (const Layout& layout : layouts) {
    if (!layout.refused.empty()) {
      Advice a;
      a.layout = layout;
      a.reason = layout.refused;
      all.push_back(a);
      continue;
    }
    for (bool recompute : {false, true}) all.push_back(weigh(layout, recompute, in, maxima));
  }
  // Those that fit first, by tokens/s (layouts differ in tokens per step: tensor parallel ranks
  // share theirs), then those that do not fit by what they would need, then the inapplicable.
  const auto order = [](const Advice& a) { return a.fits ? 0 : a.projection ? 1 : 2; };
  std::stable_sort(all.begin(), all.end(), [&](const Advice& a, const Advice& b) {
    if (order(a) != order(b)) return order(a) < order(b);
    if (order(a) == 0) return a.projection->tokens_per_s > b.projection->tokens_per_s;
    if (order(a) == 1) return a.memory->total_bytes() < b.memory->total_bytes();
    return false;
  });
  int rank = 0;
  for (Advice& a : all)
    if (a.fits) a.rank = ++rank;
  return all;
}

}  // namespace collreplay::advise
