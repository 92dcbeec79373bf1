// FLOPs of a traced step from the input shapes torch.profiler records (record_shapes=True): the
// GEMM and attention ops on the host, each counted from its "Input Dims" (and, for attention's
// is_causal, its "Concrete Inputs").
//
// Nested ops are counted once, at the innermost: aten::linear and aten::matmul call aten::addmm /
// aten::mm / aten::bmm underneath, and autograd's backward of each calls aten::mm; an op that holds
// another counted op (same thread, inside its span) is left out, so only the GEMM that ran is
// counted. A linear or matmul with nothing counted inside (a trace cut at depth) counts itself.
#pragma once
#include <optional>
#include <string>

#include "workloads/trace/trace_events.hpp"

namespace collreplay::trace {

// Whether op_flops counts ops of this name ("aten::mm", ...).
bool counts_flops(const std::string& op_name);

// One op's FLOPs from its shapes; 0 when its shapes are not the ones expected.
double op_flops(const ShapedOp& op);

// The step's FLOPs (innermost counted ops only); nullopt when the trace has no shapes.
std::optional<double> traced_flops(const TraceEvents& trace);

}  // namespace collreplay::trace
