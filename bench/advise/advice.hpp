// Each layout weighed: its schedule built by the workloads' builder (with and without recompute),
// its memory per GPU, its step projected by `project`'s own projection over the chosen fabric,
// then ranked by tokens/s among those that fit.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/advise/layouts.hpp"
#include "bench/project/memory/memory_model.hpp"
#include "bench/project/projection.hpp"

namespace collreplay::advise {

using project::activation_bytes;
using project::memory_per_gpu;
using project::MemoryPerGpu;
using project::OptimizerStates;
using project::parse_optimizer_states;

struct Advice {
  Layout layout;
  std::optional<bool> recompute;  // empty for a layout that does not apply
  std::optional<MemoryPerGpu> memory;
  std::optional<project::ProjectionRow> projection;
  bool fits = false;
  std::optional<int> rank;  // 1 = the most tokens/s among those that fit
  std::string reason;       // why it does not fit or apply ("" when it fits)
};

struct AdviceInputs {
  // Fabric, compute, terms and the memory limit (required: its model and usable memory); the
  // request is per layout.
  project::ProjectionInputs projection;
  int nodes = 1;
};

// One entry per layout and recompute choice (one per layout that does not apply), ranked.
std::vector<Advice> advise_layouts(const std::vector<Layout>& layouts, const AdviceInputs& in);

}  // namespace collreplay::advise
