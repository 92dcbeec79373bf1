#include "bench/project/layouts/ranked_layouts.hpp"

#include <algorithm>
#include <atomic>
#include <future>
#include <thread>
#include <map>

#include "common/errors.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay::project {
namespace {

std::string too_big(const MemoryPerGpu& m, const MemoryBudget& budget) {
  return "needs " + gib_text(m.reserved_bytes(kSlackLow)) + " per GPU of " +
         gib_text(budget.tensor_room_bytes()) + " (tensors " + gib_text(m.total_bytes()) +
         ", parameters " + gib_text(m.params_bytes) + ", gradients " +
         gib_text(m.grads_bytes) + ", optimizer states " + gib_text(m.optimizer_bytes) +
         ", gathered units " + gib_text(m.gathered_bytes) + ", activations " +
         gib_text(m.activations_bytes) + ")";
}

// The layout's step as `project` projects it (the same inputs give the same row), memory
// included.
RankedLayout weigh(const RankedLayout& asked, const Schedule& schedule, int nodes,
                   const ProjectionInputs& fabric, NormalMaxima& maxima,
                   std::map<int, Schedule>& stages) {
  RankedLayout a = asked;
  ProjectionInputs projection = fabric;
  projection.request = a.layout.request;
  // Ranked by tokens/s: no exposure to attribute, and a step too big for the GPU is not run.
  projection.attribute_exposure = false;
  projection.simulate_unfit = false;
  projection.pipeline_stages = &stages;
  a.projection = project_schedule(projection, schedule, nodes, maxima);
  a.memory = a.projection->memory;
  a.fits = a.projection->fits;
  if (!a.fits) a.reason = too_big(*a.memory, projection.memory->budget);
  return a;
}

// Those that fit first, by tokens/s (layouts differ in tokens per step: tensor parallel ranks
// share theirs), then those that do not fit by what they would need, then the inapplicable.
void rank(std::vector<RankedLayout>& all) {
  const auto order = [](const RankedLayout& a) { return a.fits ? 0 : a.projection ? 1 : 2; };
  std::stable_sort(all.begin(), all.end(), [&](const RankedLayout& a, const RankedLayout& b) {
    if (order(a) != order(b)) return order(a) < order(b);
    if (order(a) == 0) return a.projection->tokens_per_s > b.projection->tokens_per_s;
    if (order(a) == 1) return a.memory->total_bytes() < b.memory->total_bytes();
    return false;
  });
  int next = 0;
  for (RankedLayout& a : all)
    if (a.fits) a.rank = ++next;
}

}  // namespace

std::string RankedLayout::name() const {
  return recompute ? layout_label(layout.request) : layout.name;
}

std::vector<std::vector<RankedLayout>> rank_layouts(const std::vector<Layout>& layouts, int nodes,
                                                    const std::vector<ProjectionInputs>& fabrics) {
  for (const ProjectionInputs& f : fabrics)
    if (!f.memory) throw RuntimeError("no memory limit to weigh layouts against");
  // Per layout, per fabric: its entries (one for a layout that does not apply, else one per
  // recompute choice). Layouts are independent projections: they are weighed on every core, and
  // gathered in their own order, so the ranking is the same on any machine.
  std::vector<std::vector<std::vector<RankedLayout>>> weighed(layouts.size());
  const auto weigh_layout = [&](std::size_t index) {
    std::vector<std::vector<RankedLayout>> per_fabric(fabrics.size());
    RankedLayout asked;
    asked.layout = layouts[index];
    if (!asked.layout.refused.empty()) {
      asked.reason = asked.layout.refused;
      for (auto& entries : per_fabric) entries.push_back(asked);
      weighed[index] = std::move(per_fabric);
      return;
    }
    std::vector<NormalMaxima> maxima(fabrics.size());
    for (bool recompute : {false, true}) {
      asked.recompute = recompute;
      asked.layout.request.activation_checkpointing = recompute;
      const Schedule schedule = build_schedule(asked.layout.request);
      std::map<int, Schedule> stages;  // a pipeline's other stages, built once for every fabric
      for (std::size_t f = 0; f < fabrics.size(); ++f)
        per_fabric[f].push_back(weigh(asked, schedule, nodes, fabrics[f], maxima[f], stages));
    }
    weighed[index] = std::move(per_fabric);
  };
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < layouts.size(); i = next++) weigh_layout(i);
  };
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::future<void>> workers;
  for (unsigned w = 1; w < std::min<std::size_t>(cores, layouts.size()); ++w)
    workers.push_back(std::async(std::launch::async, worker));
  worker();
  for (std::future<void>& w : workers) w.get();  // a worker's exception is thrown here
  std::vector<std::vector<RankedLayout>> all(fabrics.size());
  for (auto& per_fabric : weighed)
    for (std::size_t f = 0; f < fabrics.size(); ++f)
      for (RankedLayout& entry : per_fabric[f]) all[f].push_back(std::move(entry));
  for (auto& ranked : all) rank(ranked);
  return all;
}

const RankedLayout* best_layout(const std::vector<RankedLayout>& ranked) {
  for (const RankedLayout& a : ranked)
    if (a.rank && *a.rank == 1) return &a;
  return nullptr;
}

const RankedLayout* same_layout(const std::vector<RankedLayout>& ranked, const RankedLayout& like) {
  for (const RankedLayout& a : ranked)
    if (a.layout.name == like.layout.name && a.recompute == like.recompute) return &a;
  return nullptr;
}

}  // namespace collreplay::project
