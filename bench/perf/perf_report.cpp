#include "bench/perf/perf_report.hpp"

#include <cstdio>
#include <string>

#include "bench/app/rank_stats.hpp"
#include "bench/flags/run_flags.hpp"

namespace collreplay {

nlohmann::json record_for(const PerfContext& ctx, const Measurement& m, const RunMetadata& meta) {
  const double time_us = m.times_us.mean;
  const double algbw = algbw_GBps(static_cast<double>(m.bytes), time_us * 1e-6);
  const double busbw = busbw_GBps(m.bus_bytes, time_us * 1e-6);
  const PerfOptions& o = ctx.options;
  nlohmann::json record = {{"record", "perf"},
                           {"op", ctx.op.name()},
                           {"bytes", m.bytes},
                           {"count", m.count},
                           {"dtype", dtype_name(o.dtype)},
                           {"redop", ctx.op.reduces() ? reduce_op_name(o.reduce_op) : "none"},
                           {"placement", placement_name(m.placement)},
                           {"ranks", meta.ranks},
                           {"nodes", meta.nodes},
                           {"time_us", time_us},
                           {"time_min_us", m.times_us.min},
                           {"time_p50_us", m.times_us.p50},
                           {"time_p95_us", m.times_us.p95},
                           {"time_max_us", m.times_us.max},
                           {"time_cpu_us", m.cpu_us},
                           {"time_cv", m.times_us.cv},
                           {"iterations_timed", m.ops_timed},
                           {"time_p50_ci_lo_us", m.times_us.p50_ci_lo},
                           {"time_p50_ci_hi_us", m.times_us.p50_ci_hi},
                           {"samples", m.times_us.samples},
                           {"time_samples_us", m.samples_us},
                           {"ops_per_sample", m.ops_per_sample},
                           {"per_iteration_timing", m.ops_per_sample == 1},
                           {"warmup_ops", m.warmup_ops},
                           {"algbw_GBps", algbw},
                           {"busbw_GBps", busbw},
                           {"wrong", m.wrong},
                           {"backend", meta.backend},
                           {"transport", meta.transport_verified},
                           {"report", rank_reduce_name(o.report)},
                           {"iterations", o.iterations},
                           {"agg_iters", o.agg_iters},
                           {"blocking", o.blocking},
                           {"checks", o.checks},
                           {"stable_pct", o.stable_pct},
                           {"warmup_iterations", o.warmup_iterations},
                           {"repetition", m.repetition},
                           {"seed", o.seed},
                           {"graph_launches", o.graph_launches},
                           {"registered_buffers", o.register_buffers},
                           {"run", meta.to_json()}};
  if (ctx.op.name() == "all_to_allv") record["skew"] = skew_name(o.skew);
  if (ctx.op.has_root()) record["root"] = o.root;
  if (m.line_rate) write_line_rate(record, *m.line_rate);
  if (m.fabric) {
    // Counted over the timed iterations and the time_ops bookkeeping between them.
    record["fabric_tx_bytes"] = m.fabric->tx;
    record["fabric_rx_bytes"] = m.fabric->rx;
    record["fabric_iterations"] = m.ops_timed;
  }
  return record;
}

namespace {

// nccl-tests' lines for the blocking modes, and what collreplay makes of the flags it ignores.
void print_mode_notes(const PerfContext& ctx) {
  const PerfOptions& o = ctx.options;
  if (o.blocking == 1) std::printf("# Blocking Enabled: wait and barrier after each op (timed)\n");
  if (o.blocking == 2) std::printf("# Blocking Enabled: wait after each op, no barrier\n");
  if (o.blocking == 3)
    std::printf("# Blocking Enabled: wait after each op, barrier after it; time excludes it\n");
  if (o.blocking == 0 && ctx.comm.backend() == BackendKind::mpi)
    std::printf("# host backend: each op is waited for before the next (as -z 2)\n");
  if (o.reduce_op_given && !ctx.op.reduces())
    std::printf("# -o %s: %s does not reduce (redop none), as in nccl-tests\n",
                std::string(reduce_op_name(o.reduce_op)).c_str(),
                std::string(ctx.op.name()).c_str());
  if (o.report_cputime)
    std::printf("# cputime: the host's time issuing one op; bandwidths from the op's time\n");
}

}  // namespace

void print_header(const PerfContext& ctx, const RunMetadata& meta) {
  const PerfOptions& o = ctx.options;
  std::printf("# collreplay %s_perf: backend %s, transport %s (asked: %s), %d ranks on %d node%s\n",
              std::string(ctx.op.name()).c_str(), meta.backend.c_str(),
              meta.transport_verified.c_str(), meta.transport_asked.c_str(), meta.ranks, meta.nodes,
              meta.nodes == 1 ? "" : "s");
  if (meta.emulated || meta.fabric != "real" || meta.dilation != 1)
    std::printf("# fabric %s%s, dilation %g (times shown undilated)\n", meta.fabric.c_str(),
                meta.emulated ? " (emulated)" : "", meta.dilation);
  if (!meta.interfaces.empty()) {
    std::string names;
    for (const std::string& n : meta.interfaces) names += (names.empty() ? "" : ", ") + n;
    std::printf("# interfaces: %s\n", names.c_str());
  }
  for (const std::string& note : run_notes(meta)) std::printf("# %s\n", note.c_str());
  std::printf(
      "#  minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d iters: %d agg iters: %d "
      "validation: %d report: %s%s%s\n",
      static_cast<unsigned long long>(o.min_bytes), static_cast<unsigned long long>(o.max_bytes),
      static_cast<unsigned long long>(o.step_factor > 1 ? o.step_factor : o.step_bytes),
      o.step_factor > 1 ? "factor" : "bytes", o.warmup_iterations, o.iterations, o.agg_iters,
      o.checks, std::string(rank_reduce_name(o.report)).c_str(),
      ctx.op.name() == "all_to_allv" ? (" skew: " + skew_name(o.skew)).c_str() : "",
      (o.graph_launches > 0 ? " cudagraph launches: " + std::to_string(o.graph_launches) : "")
          .append(o.register_buffers ? " registered buffers" : "")
          .c_str());
  print_mode_notes(ctx);
  std::printf("#\n# Using devices\n");
  for (int r = 0; r < meta.ranks; ++r)
    std::printf("#  Rank %2d on %12s device %s\n", r,
                meta.hosts[static_cast<std::size_t>(r)].c_str(),
                meta.devices[static_cast<std::size_t>(r)].c_str());
}

}  // namespace collreplay
