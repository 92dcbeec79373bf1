#include "bench/project/memory/pipeline_memory.hpp"

#include <algorithm>
#include <vector>

#include "common/dtype.hpp"
#include "workloads/plan/pipeline/pipeline_order.hpp"

namespace collreplay::project {

MemoryPerGpu pipeline_memory_per_gpu(const Schedule& s, const ModelConfig& m,
                                     const WorkloadRequest& q, OptimizerStates states) {
  MemoryPerGpu mem = memory_per_gpu(s, m, q, states);
  const PipelinePlan plan = plan_pipeline(q, q.layers < 0 ? static_cast<int>(m.layers) : q.layers);
  const int rank = plan.pipeline_rank(s.rank);
  std::vector<SpanActivations> chunk;
  for (int c = 0; c < plan.virtual_stages; ++c) {
    const StageSpan& span = plan.stages[static_cast<std::size_t>(plan.stage_of(rank, c))];
    chunk.push_back(span_activation_bytes(m, q, span.first_layer, span.layers, span.head));
  }
  std::vector<std::uint64_t> in_flight(chunk.size(), 0);
  std::uint64_t held = 0, peak = 0;
  for (const PipeAction& a : pipeline_actions(plan, rank)) {
    const auto c = static_cast<std::size_t>(a.chunk);
    if (a.kind == PipeAction::Kind::forward) {
      ++in_flight[c];
      held += chunk[c].held;
      peak = std::max(peak, held + chunk[c].transient);
    } else if (a.kind == PipeAction::Kind::backward) {
      peak = std::max(peak, held + chunk[c].transient);
      --in_flight[c];
      held -= chunk[c].held;
    }
  }
  std::uint64_t p2p = 0, buffers = 0;
  for (const ScheduleOp& op : s.ops)
    if (op.is_collective() && (op.collective().kind == CollectiveKind::send ||
                               op.collective().kind == CollectiveKind::recv))
      p2p = op.collective().bytes;
  if (plan.kind != PipeScheduleKind::interleaved) {
    const auto m_count = static_cast<std::uint64_t>(plan.micro_batches);
    buffers = m_count * p2p * static_cast<std::uint64_t>((rank > 0) + (rank < plan.pp - 1));
  }
  mem.activations_bytes = peak + buffers;
  if (q.plan == "fsdp2") {
    const std::uint64_t reduce = dtype_size_bytes(parse_dtype(q.reduce_dtype));
    std::uint64_t gathered = 0;
    for (const UnitSummary& u : s.units) gathered += u.allgather_bytes + u.params * reduce;
    mem.gathered_bytes = gathered;
  }
  return mem;
}

}  // namespace collreplay::project
