#include "workloads/trace/trace_listing.hpp"

#include <cstdio>
#include <string>

#include "collectives/ops/op_registry.hpp"

namespace collreplay::trace {
namespace {

std::string op_list(const std::vector<int>& ops) {
  std::string text;
  for (int i : ops) text += (text.empty() ? "" : ",") + std::to_string(i);
  return text.empty() ? "-" : text;
}

// Who else the op names: a broadcast's root, a send's or recv's peer, an all_to_allv's counts.
std::string party(const CollectiveOp& c) {
  if (op_spec(c.kind).has_root()) return " root " + std::to_string(c.root);
  if (is_point_to_point(c.kind) && c.peer >= 0) return " peer " + std::to_string(c.peer);
  if (c.kind != CollectiveKind::all_to_allv) return "";
  std::string counts;
  for (std::size_t i = 0; i < c.send_counts.size() && i < 8; ++i)
    counts += (i ? "," : "") + std::to_string(c.send_counts[i]);
  if (c.send_counts.size() > 8) counts += ",...";
  return " send [" + counts + "]";
}

}  // namespace

void print_trace_listing(const TraceImport& in, std::ostream& out) {
  const Schedule& s = in.schedule;
  int collectives = 0, computes = 0;
  for (const ScheduleOp& op : s.ops) (op.is_collective() ? collectives : computes) += 1;
  char line[2048];  // a long trace path stays on its line
  const std::string step = in.step >= 0 ? "ProfilerStep#" + std::to_string(in.step)
                                        : "the whole trace (no ProfilerStep)";
  char flops[64] = "FLOPs unknown (no shapes)";
  if (in.compute_flops)
    std::snprintf(flops, sizeof flops, "%.4g TFLOP from traced shapes", *in.compute_flops / 1e12);
  std::snprintf(line, sizeof line,
                "# trace %s (rank %d of %d%s%s): %s; traced step %.2f ms (after %.2f ms waiting "
                "for the previous step's GPU work); GPU compute %.2f ms, collectives %.2f ms, "
                "host %.2f ms; %d collectives, %d compute ops; %s\n",
                s.model.c_str(), s.rank, s.world, in.device.empty() ? "" : ", ", in.device.c_str(),
                step.c_str(), in.step_us / 1e3, in.queued_us / 1e3, in.compute_us / 1e3,
                in.collective_us / 1e3,
                in.host_us / 1e3, collectives, computes, flops);
  out << line;
  out << "#  op  name                 phase      what                                    "
         "traced_ms  host_ms  waits_for  hides_behind\n";
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const ScheduleOp& op = s.ops[i];
    std::string what;
    double host_ms = 0;
    if (op.is_collective()) {
      const CollectiveOp& c = op.collective();
      what = std::string(collective_kind_name(c.kind)) + " " + std::to_string(c.bytes) + " B " +
             std::string(dtype_name(c.dtype)) + " " + group_label(c) + party(c);
    } else {
      std::uint64_t launches = 0;
      for (const KernelSlice& k : op.compute().kernels) launches += k.launches;
      what = std::to_string(launches) + " kernels";
      host_ms = op.compute().host_us / 1e3;
    }
    std::snprintf(line, sizeof line, "%5zu  %-20s %-10s %-40s %9.3f  %7.3f  %-9s  %d\n", i,
                  op.name.c_str(), std::string(phase_name(op.phase)).c_str(), what.c_str(),
                  in.traced_us[i] / 1e3, host_ms, op_list(op.deps).c_str(), op.hides_behind);
    out << line;
  }
}

}  // namespace collreplay::trace
