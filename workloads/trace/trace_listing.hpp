// What `replay --trace FILE --dry-run` prints beside the schedule table: the traced step, and
// every imported op in issue order, collectives with kind, size, dtype, group and the compute they
// wait for, compute with its kernels' traced GPU time and its host time.
#pragma once
#include <ostream>

#include "workloads/trace/trace_schedule.hpp"

namespace collreplay::trace {

void print_trace_listing(const TraceImport& in, std::ostream& out);

}  // namespace collreplay::trace
