#include "workloads/schedule_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>

#include "common/sizes.hpp"
#include "workloads/model/gemm_slices.hpp"
#include "workloads/model/model.hpp"
#include "workloads/plan/parallel/mesh.hpp"

namespace collreplay {

int group_size(const Schedule& s, GroupKind g) {
  return s.ep > 0 && s.tp > 0 ? mesh_group_size(mesh_layout(s), g) : 0;
}

int collective_group_size(const Schedule& s, const CollectiveOp& c) {
  return c.group == GroupKind::strided ? c.group_size : group_size(s, c.group);
}

namespace {

// The totals the schedule's JSON and table name (ScheduleTotals' fields), from the totals by
// kind: all-to-all counts all_to_all and all_to_allv, a send_recv one send and one receive.
void name_totals(ScheduleTotals& t) {
  const auto of = [&](CollectiveKind kind) { return t.by_kind[static_cast<std::size_t>(kind)]; };
  const auto sum = [](GroupTotals a, GroupTotals b, const char* what) {
    return GroupTotals{a.ops + b.ops, checked_add(a.bytes, b.bytes, what)};
  };
  const GroupTotals alltoall =
      sum(of(CollectiveKind::all_to_all), of(CollectiveKind::all_to_allv), "all-to-all bytes");
  const GroupTotals sends =
      sum(of(CollectiveKind::send), of(CollectiveKind::send_recv), "point-to-point bytes");
  const GroupTotals recvs =
      sum(of(CollectiveKind::recv), of(CollectiveKind::send_recv), "point-to-point bytes");
  const auto name = [](std::uint64_t& ops, std::uint64_t& bytes, GroupTotals g) {
    ops = g.ops;
    bytes = g.bytes;
  };
  name(t.allgathers, t.allgather_bytes, of(CollectiveKind::all_gather));
  name(t.reduce_scatters, t.reduce_scatter_bytes, of(CollectiveKind::reduce_scatter));
  name(t.alltoalls, t.alltoall_bytes, alltoall);
  name(t.allreduces, t.allreduce_bytes, of(CollectiveKind::all_reduce));
  name(t.broadcasts, t.broadcast_bytes, of(CollectiveKind::broadcast));
  name(t.sends, t.send_bytes, sends);
  name(t.recvs, t.recv_bytes, recvs);
}

}  // namespace

ScheduleTotals schedule_totals(const Schedule& s) {
  ScheduleTotals t;
  t.params = s.model_params;
  t.active_params = s.active_params;
  for (const ScheduleOp& op : s.ops) {
    if (!op.is_collective()) {
      const ComputeOp& c = op.compute();
      const auto phase = static_cast<std::size_t>(op.phase);
      t.flops += gemm_flops(c.gemms);
      t.host_us += c.host_us;
      for (const KernelSlice& k : c.kernels) {
        (k.kind == KernelKind::sync ? t.syncs : t.kernel_launches)[phase] += k.launches;
        t.kernel_bytes[phase] = checked_add(
            t.kernel_bytes[phase], checked_add(k.read_bytes, k.write_bytes, "kernel bytes"),
            "kernel bytes per step");
      }
      continue;
    }
    const CollectiveOp& c = op.collective();
    GroupTotals& g = t.by_group[static_cast<std::size_t>(c.group)];
    ++g.ops;
    g.bytes = checked_add(g.bytes, c.bytes, "group bytes per step");
    if (c.group == GroupKind::strided) {
      GroupTotals& sg = t.by_strided_group[{c.group_size, c.group_stride}];
      ++sg.ops;
      sg.bytes = checked_add(sg.bytes, c.bytes, "group bytes per step");
    }
    GroupTotals& k = t.by_kind[static_cast<std::size_t>(c.kind)];
    ++k.ops;
    k.bytes = checked_add(k.bytes, c.bytes, "collective bytes per step");
  }
  name_totals(t);
  return t;
}

namespace {

// A grouped GEMM's rows per group under its line: "rows per group (m): 250 262 0 ... (sum 4096)".
std::string group_rows_line(const GemmShape& g) {
  std::string line = "      rows per group (" + std::string(g.group_k ? "k" : "m") + "):";
  for (std::int64_t r : g.group_rows) line += " " + std::to_string(r);
  return line + " (sum " + std::to_string(grouped_rows_total(g)) + ")\n";
}
std::string num(std::uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}
std::string tflop(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", f / 1e12);
  return buf;
}

// "#   grouped GEMMs   12 (128 groups; rows per group 61-209, ...)": empty when there are none.
std::string grouped_gemms_line(const Schedule& s) {
  std::uint64_t count = 0;
  std::int64_t groups = 0, least = -1, most = 0;
  for (const ScheduleOp& op : s.ops)
    if (!op.is_collective())
      for (const GemmShape& g : op.compute().gemms) {
        if (g.group_rows.empty()) continue;
        ++count;
        groups = std::max(groups, g.batch);
        const auto [lo, hi] = std::minmax_element(g.group_rows.begin(), g.group_rows.end());
        least = least < 0 ? *lo : std::min(least, *lo);
        most = std::max(most, *hi);
      }
  if (count == 0) return "";
  return "#   grouped GEMMs   " + std::to_string(count) + " (up to " + std::to_string(groups) +
         " groups; rows per group " + std::to_string(least) + "-" + std::to_string(most) +
         "; --format slices lists each)\n";
}
}  // namespace

void print_schedule_table(const Schedule& s, std::ostream& out) {
  char line[512];
  out << "# collreplay dry run: " << s.model << ", plan " << s.plan << ", wrap " << s.wrap
      << ", world " << s.world << ", ep " << s.ep << ", tp " << s.tp << ", shard group "
      << mesh_layout(s).shard() << ", rank " << s.rank << ", micro-batch " << s.micro_batch
      << " x seq " << s.seq << " x " << s.micro_batches << " micro-batches\n";
  std::snprintf(line, sizeof line, "%-34s %16s %16s %18s %18s %16s %10s %10s\n", "unit", "params",
                "shard_bytes", "allgather_bytes", "reduce_scat_bytes", "allreduce_bytes",
                "fwd_TFLOP", "bwd_TFLOP");
  out << line;
  for (const UnitSummary& u : s.units) {
    std::snprintf(line, sizeof line, "%-34s %16s %16s %18s %18s %16s %10s %10s\n", u.name.c_str(),
                  num(u.params).c_str(), num(u.shard_bytes).c_str(), num(u.allgather_bytes).c_str(),
                  num(u.reduce_scatter_bytes).c_str(), num(u.allreduce_bytes).c_str(),
                  tflop(u.fwd_flops).c_str(), tflop(u.bwd_flops).c_str());
    out << line;
  }
  if (!s.moe.empty()) {
    std::snprintf(line, sizeof line, "\n%-8s %20s %20s %20s %20s\n", "moe", "dispatch_send_B",
                  "dispatch_cross_B", "combine_send_B", "combine_cross_B");
    out << line;
    for (const MoeLayerSummary& m : s.moe) {
      std::snprintf(line, sizeof line, "%-8d %20s %20s %20s %20s\n", m.layer,
                    num(m.dispatch_send_bytes).c_str(), num(m.dispatch_cross_rank_bytes).c_str(),
                    num(m.combine_send_bytes).c_str(), num(m.combine_cross_rank_bytes).c_str());
      out << line;
    }
  }
  const ScheduleTotals t = schedule_totals(s);
  out << "\n# per step per rank: " << s.ops.size() << " ops; params " << num(t.params) << " ("
      << short_count(t.params) << "), active " << num(t.active_params) << " ("
      << short_count(t.active_params) << ")\n";
  out << "#   all-gathers     " << num(t.allgathers) << "  " << num(t.allgather_bytes) << " B ("
      << format_bytes(t.allgather_bytes) << ")\n";
  out << "#   reduce-scatters " << num(t.reduce_scatters) << "  " << num(t.reduce_scatter_bytes)
      << " B (" << format_bytes(t.reduce_scatter_bytes) << ")\n";
  out << "#   all-to-alls     " << num(t.alltoalls) << "  " << num(t.alltoall_bytes) << " B ("
      << format_bytes(t.alltoall_bytes) << ")\n";
  out << "#   all-reduces     " << num(t.allreduces) << "  " << num(t.allreduce_bytes) << " B ("
      << format_bytes(t.allreduce_bytes) << ")\n";
  if (t.broadcasts > 0)
    out << "#   broadcasts      " << num(t.broadcasts) << "  " << num(t.broadcast_bytes) << " B ("
        << format_bytes(t.broadcast_bytes) << ")\n";
  if (t.sends + t.recvs > 0)
    out << "#   sends / recvs   " << num(t.sends) << " / " << num(t.recvs) << "  "
        << num(t.send_bytes) << " / " << num(t.recv_bytes) << " B ("
        << format_bytes(t.send_bytes) << " / " << format_bytes(t.recv_bytes) << ")\n";
  for (GroupKind g : kAllGroupKinds) {
    const GroupTotals& gt = t.by_group[static_cast<std::size_t>(g)];
    if (gt.ops == 0 || g == GroupKind::strided) continue;
    std::snprintf(line, sizeof line, "#   group %-13s size %-5d %6s ops  %s B (%s)\n",
                  std::string(group_kind_name(g)).c_str(), group_size(s, g), num(gt.ops).c_str(),
                  num(gt.bytes).c_str(), format_bytes(gt.bytes).c_str());
    out << line;
  }
  for (const auto& [shape, gt] : t.by_strided_group) {
    const std::string name = "strided(" + std::to_string(shape.first) + "," +
                             std::to_string(shape.second) + ")";
    std::snprintf(line, sizeof line, "#   group %-13s size %-5d %6s ops  %s B (%s)\n",
                  name.c_str(), shape.first, num(gt.ops).c_str(), num(gt.bytes).c_str(),
                  format_bytes(gt.bytes).c_str());
    out << line;
  }
  out << "#   GEMM            " << tflop(t.flops) << " TFLOP\n";
  out << grouped_gemms_line(s);
  for (Phase p : {Phase::forward, Phase::recompute, Phase::backward, Phase::optimizer}) {
    const auto i = static_cast<std::size_t>(p);
    if (t.kernel_launches[i] + t.syncs[i] == 0) continue;
    std::snprintf(line, sizeof line, "#   kernels %-9s %7s launches  %s B (%s) moved, %s host syncs\n",
                  std::string(phase_name(p)).c_str(), num(t.kernel_launches[i]).c_str(),
                  num(t.kernel_bytes[i]).c_str(), format_bytes(t.kernel_bytes[i]).c_str(),
                  num(t.syncs[i]).c_str());
    out << line;
  }
  std::snprintf(line, sizeof line, "#   host time       %.2f ms to issue the compute (--host-time)\n",
                t.host_us / 1e3);
  out << line;
}

void print_schedule_slices(const Schedule& s, std::ostream& out) {
  char line[512];
  out << "# " << s.model << ", plan " << s.plan << ", world " << s.world << ", rank " << s.rank
      << ": every compute op's GEMMs (M x N x K x batch) and kernels in launch order\n";
  for (const ScheduleOp& op : s.ops) {
    if (op.is_collective()) continue;
    const ComputeOp& c = op.compute();
    std::snprintf(line, sizeof line, "%s  [%s, unit %s, host %.1f us]\n", op.name.c_str(),
                  std::string(phase_name(op.phase)).c_str(), op.unit.c_str(), c.host_us);
    out << line;
    std::size_t next = 0;
    auto kernels_at = [&](std::size_t at) {
      for (; next < c.kernels.size() && static_cast<std::size_t>(c.kernels[next].at) == at; ++next) {
        const KernelSlice& k = c.kernels[next];
        std::snprintf(line, sizeof line, "    %-7s x%-4s %14s el  r %10s  w %10s  %s\n",
                      std::string(kernel_kind_name(k.kind)).c_str(), num(k.launches).c_str(),
                      num(k.elements).c_str(), format_bytes(k.read_bytes).c_str(),
                      format_bytes(k.write_bytes).c_str(), k.label.c_str());
        out << line;
      }
    };
    for (std::size_t g = 0; g < c.gemms.size(); ++g) {
      kernels_at(g);
      const GemmShape& m = c.gemms[g];
      std::snprintf(line, sizeof line, "    gemm    %lld x %lld x %lld x %lld  %s\n",
                    static_cast<long long>(m.m), static_cast<long long>(m.n),
                    static_cast<long long>(m.k), static_cast<long long>(m.batch),
                    m.label.c_str());
      out << line;
      if (!m.group_rows.empty()) out << group_rows_line(m);
    }
    kernels_at(c.gemms.size());
  }
}

}  // namespace collreplay
