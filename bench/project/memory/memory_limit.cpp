#include "bench/project/memory/memory_limit.hpp"

#include <cmath>

#include "bench/compute/gpu_peaks.hpp"
#include "bench/project/project_report.hpp"
#include "common/errors.hpp"

namespace collreplay::project {

MemoryBudget memory_budget(const MemoryFlags& flags, const ComputeSource& compute) {
  MemoryBudget budget;
  if (flags.gpu_memory_gib) {
    const double gib = *flags.gpu_memory_gib;
    if (!(gib > 0) || !std::isfinite(gib) || gib > 1e6)
      throw UsageError("--gpu-memory-gib must be a positive number of GiB");
    budget.capacity_bytes = static_cast<std::uint64_t>(gib * kGiB);
    budget.capacity_source = "--gpu-memory-gib " + format_value("%g", gib);
    return budget;
  }
  const std::string gpu = compute.gpu.empty() ? "h100" : compute.gpu;
  const GpuPeak peak = *find_gpu_peak(gpu);
  budget.capacity_bytes = static_cast<std::uint64_t>(peak.hbm_gbytes * kGiB);
  budget.capacity_source = gpu + "'s " + format_value("%g", peak.hbm_gbytes) + " GiB";
  if (compute.gpu.empty())
    budget.capacity_source += " (assumed: measured compute names no GPU; give --gpu-memory-gib)";
  return budget;
}

std::optional<MemoryLimit> memory_limit(const MemoryFlags& flags, const ComputeSource& compute,
                                        const WorkloadRequest& request) {
  const MemoryBudget budget = memory_budget(flags, compute);
  const OptimizerStates states = parse_optimizer_states(flags.optimizer_states);
  if (!request.trace.empty()) return std::nullopt;
  return MemoryLimit{load_model(request.model, request.catalog_dir), budget, states};
}

std::string memory_words(const MemoryLimit& limit) {
  const MemoryBudget& b = limit.budget;
  return "the step's tensors may take " + gib_text(b.tensor_room_bytes()) + " of " +
         b.capacity_source + " (beside the CUDA context " + gib_text(kCudaContextBytes) +
         " and NCCL's buffers " + gib_text(kNcclBuffersBytes) + "), with the allocator's slack on "
         "what a step allocates and frees: a step fits at " +
         format_value("%g", kSlackLow * 100) + "%, and is tight unless it fits at " +
         format_value("%g", kSlackHigh * 100) +
         "% too; optimizer states " + optimizer_states_name(limit.states);
}

}  // namespace collreplay::project
