#include "bench/project/check/check_memory.hpp"

#include <ostream>

namespace collreplay::project {

MemoryVerdict memory_verdict(const std::string& series, int nodes, const MemoryPerGpu& memory,
                             const MemoryBudget& budget, const std::string& where) {
  MemoryVerdict v;
  v.series = series;
  v.nodes = nodes;
  v.fit = memory_fit(memory, budget);
  v.tensors_bytes = memory.total_bytes();
  v.need_low_bytes = memory.reserved_bytes(kSlackLow);
  v.need_high_bytes = memory.reserved_bytes(kSlackHigh);
  v.room_bytes = budget.tensor_room_bytes();
  v.where = where;
  return v;
}

void print_memory_verdicts(const std::vector<MemoryVerdict>& verdicts, std::ostream& out) {
  out << "# memory: every published run ran, so its step must fit its GPU; needs = what stays + "
         "what a step allocates and frees x (1 + the allocator's slack, "
      << kSlackLow * 100 << "% or " << kSlackHigh * 100
      << "% measured), room = the GPU less the CUDA context and NCCL's buffers\n";
  int fits = 0, tight = 0, no_fit = 0;
  for (const MemoryVerdict& v : verdicts) {
    fits += v.fit == MemoryFit::fits;
    tight += v.fit == MemoryFit::tight;
    no_fit += v.fit == MemoryFit::no_fit;
    if (v.fit == MemoryFit::fits) continue;
    out << "#   " << v.series << ", " << v.nodes << " nodes: "
        << (v.fit == MemoryFit::tight ? "tight" : "NO FIT") << " (tensors "
        << gib_text(v.tensors_bytes) << ", needs " << gib_text(v.need_low_bytes) << " to "
        << gib_text(v.need_high_bytes) << " of " << gib_text(v.room_bytes) << "; " << v.where
        << ")\n";
  }
  out << "# memory: " << fits + tight << " of " << verdicts.size() << " published rows fit ("
      << tight << " tight)";
  if (no_fit > 0) out << "; FAILED: " << no_fit << " read no fit although they ran";
  out << "\n";
}

}  // namespace collreplay::project
