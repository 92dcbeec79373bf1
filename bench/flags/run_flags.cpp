#include "bench/flags/run_flags.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>

#include "collectives/transport/transport_select.hpp"
#include "common/errors.hpp"

namespace collreplay {

void add_run_flags(CLI::App& app, RunFlags& f) {
  app.add_option("--transport", f.transport,
                 "auto|ib|socket|nvlink|shm: select it, then verify it is used (default auto)");
  app.add_option("--ifname", f.ifname, "network interface of the socket transport (eth0)");
  app.add_option("--emulate-nodes", f.emulate_nodes,
                 "NCCL: cut the ranks into N emulated nodes (own NCCL_HOSTID each)");
  app.add_option("--fabric", f.fabric,
                 "fabric profile this run stands for (sweeps/fabrics.tsv; default real, and "
                 "on an emulated cluster's node the cluster's)");
  app.add_option("--fabrics-file", f.fabrics_file,
                 "fabric profiles file (default: "
                 "sweeps/fabrics.tsv beside the build)");
  app.add_flag("--emulated", f.emulated, "the run is on an emulated cluster (recorded)");
  app.add_option("--dilate", f.dilation,
                 "emulated time runs D x slower (fabric shaped to "
                 "bandwidth / D, modeled compute D x longer); reported "
                 "times are divided by D (default 1, and on an emulated cluster's node the "
                 "cluster's)");
  app.add_option("--compute", f.compute,
                 "compute engine: auto (cuBLAS on GPU, BLAS on host) | "
                 "blas | model:GPU[@MFU] (a timed wait at the GPU's "
                 "bf16 peak x MFU, default MFU 0.5)");
  add_monitor_options(app, f.monitor);
}

void RunSetup::fill(BackendOptions& options) const {
  options.transport = transport;
  options.emulate_nodes = emulate_nodes;
}

namespace {

std::string format_number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

// The fabric and dilation of a run on a node of `cluster`: the cluster's, which the flags may
// repeat but never contradict (a run recorded as undilated on a dilated cluster reads D times
// too slow).
void take_the_clusters(const RunFlags& f, const EmulatedCluster& cluster, RunSetup& setup,
                       std::string& fabrics_file) {
  const std::string where = ": this runs on " + cluster.node + " of the emulated cluster " +
                            cluster.prefix + ", shaped as " + cluster.fabric + " at dilation " +
                            format_number(cluster.dilation) + " (" + cluster.state_file + ")";
  if (f.fabric && *f.fabric != cluster.fabric)
    throw UsageError("--fabric " + *f.fabric + where + "; leave --fabric out or give " +
                     cluster.fabric);
  if (f.dilation && *f.dilation != cluster.dilation)
    throw UsageError("--dilate " + format_number(*f.dilation) + where +
                     "; leave --dilate out or give " + format_number(cluster.dilation));
  if (fabrics_file.empty()) fabrics_file = cluster.fabrics_file;
  setup.emulated = true;
  setup.dilation = cluster.dilation;
}

}  // namespace

RunSetup parse_run_flags(const RunFlags& f) { return parse_run_flags(f, find_emulated_cluster()); }

RunSetup parse_run_flags(const RunFlags& f, const std::optional<EmulatedCluster>& cluster) {
  RunSetup setup;
  setup.transport = parse_transport_request(f.transport, f.ifname);
  const double dilation = f.dilation.value_or(1);
  if (!(dilation > 0) || !std::isfinite(dilation))
    throw UsageError("--dilate must be a number > 0 (1: no dilation)");
  if (f.emulate_nodes < 0) throw UsageError("--emulate-nodes must be >= 1");
  if (f.compute == "model" || is_compute_model(f.compute))
    setup.compute_model = parse_compute_model(f.compute);
  else if (f.compute != "auto" && f.compute != "blas")
    throw UsageError("--compute '" + f.compute + "' is not auto, blas or model:GPU[@MFU]");
  setup.compute = setup.compute_model ? setup.compute_model->name() : f.compute;
  setup.emulated = f.emulated || f.emulate_nodes > 0;
  setup.dilation = dilation;
  std::string fabrics_file = f.fabrics_file;
  if (cluster) take_the_clusters(f, *cluster, setup, fabrics_file);
  setup.fabric = check_fabric(cluster ? cluster->fabric : f.fabric.value_or("real"), fabrics_file);
  check_monitor_options(f.monitor);
  setup.emulate_nodes = f.emulate_nodes;
  return setup;
}

RunSetup prepare_run(RunSetup setup, BackendKind backend) {
  if (setup.emulate_nodes > 0 && backend != BackendKind::nccl)
    throw UsageError(
        "--emulate-nodes needs --backend nccl (for MPI, emulate nodes with "
        "sweeps/emulate/cluster)");
  if (setup.compute == "blas" && backend == BackendKind::nccl)
    throw UsageError("--compute blas runs on host buffers; use --backend mpi or --compute auto");
  const bool one_node = setup.emulate_nodes > 1 ? false : launcher_says_one_node();
  check_transport_request(setup.transport, backend, probe_host_network(), one_node);
  if (backend == BackendKind::mpi) apply_settings(mpi_transport_settings(setup.transport));
  return setup;
}

RunSetup prepare_run(const RunFlags& flags, BackendKind backend) {
  return prepare_run(parse_run_flags(flags), backend);
}

void write_setup_to_metadata(RunMetadata& meta, const RunSetup& setup) {
  meta.transport_asked = setup.transport.name();
  meta.fabric = setup.fabric ? setup.fabric->name : "real";
  meta.emulated = setup.emulated;
  meta.dilation = setup.dilation;
  meta.compute = setup.compute;
  if (setup.emulate_nodes > 0 && meta.ranks % setup.emulate_nodes == 0) {
    meta.nodes = setup.emulate_nodes;
    meta.ranks_per_node = meta.ranks / setup.emulate_nodes;
  }
}

std::string replay_param_device(bool host_buffers, const RunSetup& setup) {
  return host_buffers && !setup.compute_model ? "cpu" : "cuda";
}

std::vector<std::string> run_notes(const RunMetadata& meta) {
  std::vector<std::string> notes;
  if (!transport_matches("socket", meta.transport_verified) || meta.transport_verified == "self")
    return notes;
  std::string ipoib;
  for (const std::string& name : meta.interfaces)
    if (name.starts_with("ib")) ipoib += (ipoib.empty() ? "" : ", ") + name;
  if (!ipoib.empty())
    notes.push_back("note: the socket transport runs over " + ipoib +
                    " (IPoIB: TCP over the InfiniBand ports, not Ethernet); --ifname picks the "
                    "interface");
  return notes;
}

}  // namespace collreplay
