// The memory a projected row is checked against, from the command line: the GPU's memory
// (--gpu-memory-gib, else the modelled GPU's: --compute model:h200 has 141 GiB) less the reserve
// (gpu_memory.hpp), and the model's config to size the step with.
#pragma once
#include <optional>
#include <string>

#include "bench/project/compute_source.hpp"
#include "bench/project/projection.hpp"

namespace collreplay::project {

struct MemoryFlags {
  std::optional<double> gpu_memory_gib;   // unset: the modelled GPU's memory
  std::string optimizer_states = "plan";  // plan | fp32 | fp32-remainders (memory_model.hpp)
};

// The GPU's memory: --gpu-memory-gib, else the modelled GPU's, else (measured compute that names
// no GPU) an H100's 80 GiB, said so in capacity_source. UsageError on a bad --gpu-memory-gib.
MemoryBudget memory_budget(const MemoryFlags& flags, const ComputeSource& compute);

// The limit for `request`'s model: nullopt for a trace (no model config to size).
std::optional<MemoryLimit> memory_limit(const MemoryFlags& flags, const ComputeSource& compute,
                                        const WorkloadRequest& request);

// "checked against 72.3 GiB usable of h100's 80 GiB (reserve: CUDA context 0.75 GiB, NCCL
// buffers 1 GiB, allocator 5%)".
std::string memory_words(const MemoryLimit& limit);

}  // namespace collreplay::project
