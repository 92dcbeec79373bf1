// `project --check`'s memory verdict: every published run ran, so the memory model must let its
// step fit the GPU it ran on (memory/memory_model.hpp: what stays, plus what a step allocates and
// frees with the allocator's measured low-end slack, beside the CUDA context and NCCL). A row
// that reads `no fit` fails the check; a `tight` one (room at the low end of the slack only) is
// consistent with the run and says so.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "bench/project/memory/memory_model.hpp"

namespace collreplay::project {

struct MemoryVerdict {
  std::string series;
  int nodes = 0;
  MemoryFit fit = MemoryFit::fits;
  std::uint64_t tensors_bytes = 0;       // the step's tensors, no slack
  std::uint64_t need_low_bytes = 0;      // reserved at the allocator's low-end slack
  std::uint64_t need_high_bytes = 0;     // and at its high end
  std::uint64_t room_bytes = 0;          // the GPU less the context and NCCL
  std::string where;                     // the fixture row
};

MemoryVerdict memory_verdict(const std::string& series, int nodes, const MemoryPerGpu& memory,
                             const MemoryBudget& budget, const std::string& where);

// The rows that are tight or do not fit, and a count.
void print_memory_verdicts(const std::vector<MemoryVerdict>& verdicts, std::ostream& out);

}  // namespace collreplay::project
