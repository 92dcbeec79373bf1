// Each layout weighed: its schedule built by the workloads' builder (with and without recompute),
// its memory per GPU, its step projected by `project`'s own projection over the chosen fabric,
// then ranked by tokens/s among those that fit.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/advise/layouts.hpp"
#include "bench/advise/memory_model.hpp"
#include "bench/project/projection.hpp"

namespace collreplay::advise {

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
  project::ProjectionInputs projection;  // fabric, compute and terms; the request is per layout
  ModelConfig model;
  int nodes = 1;
  std::uint64_t gpu_memory_bytes = 0;
  OptimizerStates states = OptimizerStates::plan;
};

// One entry per layout and recompute choice (one per layout that does not apply), ranked.
std::vector<Advice> advise_layouts(const std::vector<Layout>& layouts, const AdviceInputs& in);

}  // namespace collreplay::advise
