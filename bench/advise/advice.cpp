#include "bench/advise/advice.hpp"

#include <algorithm>
#include <cstdio>

#include "workloads/plan/schedule_builder.hpp"

namespace collreplay::advise {
namespace {

std::string gib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1ULL << 30));
  return text;
}

std::string too_big(const MemoryPerGpu& m, std::uint64_t capacity) {
  return "needs " + gib(m.total_bytes()) + " per GPU of " + gib(capacity) + " (parameters " +
         gib(m.params_bytes) + ", gradients " + gib(m.grads_bytes) + ", optimizer states " +
         gib(m.optimizer_bytes) + ", gathered units " + gib(m.gathered_bytes) + ", activations " +
         gib(m.activations_bytes) + ")";
}

Advice weigh(const Layout& layout, bool recompute, const AdviceInputs& in,
             project::NormalMaxima& maxima) {
  Advice a;
  a.layout = layout;
  a.recompute = recompute;
  a.layout.request.activation_checkpointing = recompute;
  const Schedule schedule = build_schedule(a.layout.request);
  a.memory = memory_per_gpu(schedule, in.model, a.layout.request, in.states);
  project::ProjectionInputs projection = in.projection;
  projection.request = a.layout.request;
  a.projection = project::project_schedule(projection, schedule, in.nodes, maxima);
  a.fits = a.memory->total_bytes() <= in.gpu_memory_bytes;
  if (!a.fits) a.reason = too_big(*a.memory, in.gpu_memory_bytes);
  return a;
}

}  // namespace

std::vector<Advice> advise_layouts(const std::vector<Layout>& layouts, const AdviceInputs& in) {
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
