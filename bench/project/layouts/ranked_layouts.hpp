// Each layout weighed: its schedule built by the workloads' builder (with and without recompute),
// its memory per GPU, its step projected by the one projection (projection.hpp) over each fabric,
// then ranked by tokens/s among those that fit. `advise` prints the ranking; the fabric answer
// (fabrics/fabric_answer.hpp) takes each fabric's best.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "bench/project/layouts/layouts.hpp"
#include "bench/project/memory/memory_model.hpp"
#include "bench/project/projection.hpp"

namespace collreplay::project {

struct RankedLayout {
  Layout layout;
  std::optional<bool> recompute;  // empty for a layout that does not apply
  std::optional<MemoryPerGpu> memory;
  std::optional<ProjectionRow> projection;
  bool fits = false;
  std::optional<int> rank;  // 1 = the most tokens/s among those that fit
  std::string reason;       // why it does not fit or apply ("" when it fits)

  // "tp2+hsdp", "hsdp+recompute": the layout with its recompute choice, as answers name it.
  std::string name() const;
};

// One ranking per entry of `fabrics` (fabric, compute, terms and the memory limit, which is
// required; the request is per layout), at `nodes` nodes. Each layout's schedule is built once and
// projected on every fabric. Per fabric: one entry per layout and recompute choice (one per
// layout that does not apply), ranked.
std::vector<std::vector<RankedLayout>> rank_layouts(const std::vector<Layout>& layouts, int nodes,
                                                    const std::vector<ProjectionInputs>& fabrics);

// The entry ranked first (the most tokens/s among those that fit), nullptr when nothing fits.
const RankedLayout* best_layout(const std::vector<RankedLayout>& ranked);
// The entry of `ranked` with the same layout and recompute choice as `like`, nullptr if none.
const RankedLayout* same_layout(const std::vector<RankedLayout>& ranked, const RankedLayout& like);

}  // namespace collreplay::project
