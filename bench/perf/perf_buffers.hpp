// The perf harness's buffers for one case: the seeded input and the poison around it before the
// case is timed, and the exact check of the result after. Device buffers are filled and checked
// on the GPU, on the communicator's stream (collectives/device kernels), so a 4 GiB case costs
// milliseconds where a host fill and a copy each way cost seconds; host buffers, and an op
// without a device check, go through the host (collectives/ops/op_spec.hpp).
#pragma once
#include <cstdint>
#include <string>

#include "bench/perf/perf_context.hpp"
#include "collectives/ops/op_spec.hpp"

namespace collreplay {

// Writes the placement's input (OpSpec::input_value of this rank) and poison everywhere else.
void prepare_buffers(PerfContext& ctx, const OpLayout& layout, Placement p);

// Fills, runs the op once, and returns the wrong elements summed over the ranks (collective).
std::uint64_t check_result(PerfContext& ctx, const OpLayout& layout, Placement p,
                           const std::string& label);

}  // namespace collreplay
