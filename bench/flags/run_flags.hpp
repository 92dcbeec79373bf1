// The flags every executable shares about where and how it runs, and what its results must say
// about that:
//   --transport auto|ib|socket|nvlink|shm  --ifname NAME   select, then verify (exit 5 if not)
//   --emulate-nodes N     NCCL: N emulated nodes on this machine (own NCCL_HOSTID per group)
//   --fabric NAME         the fabric profile the run stands for (sweeps/fabrics.tsv; "real")
//   --fabrics-file PATH   where the profiles are (default: beside the build)
//   --emulated            the run is on an emulated cluster (recorded, so nobody mistakes it)
//   --dilate D            emulated time runs D x slower; reported times are divided by D
// On a node of an emulated cluster (sweeps/emulate/cluster) the fabric and dilation are the
// cluster's (bench/app/run/emulated_cluster.hpp) and the run is emulated: --fabric and --dilate
// may repeat them, and a value that disagrees is a UsageError.
//   --compute SPEC        auto | blas | model:GPU[@MFU] (replay's compute engine; recorded)
//   --monitor-interval S --sysfs-root DIR --metrics-port P --metrics-address A --metrics-file F
//                         counters during the run and their Prometheus exposition (monitor/)
// parse_run_flags() parses and checks them once, before MPI starts, on every rank alike;
// prepare_run() adds the backend's checks and applies the MPI transport settings (which MPI_Init
// reads); the NCCL ones travel in BackendOptions.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "bench/app/run/cli_names.hpp"
#include "bench/app/run/emulated_cluster.hpp"
#include "bench/app/run/fabric_profiles.hpp"
#include "bench/app/run/run_metadata.hpp"
#include "bench/compute/compute_model.hpp"
#include "bench/monitor/monitor_session.hpp"
#include "collectives/backend.hpp"

namespace collreplay {

struct RunFlags {
  std::string transport = "auto";
  std::string ifname;
  int emulate_nodes = 0;
  std::optional<std::string> fabric;  // as given; unset: the cluster's, else "real"
  std::string fabrics_file;
  bool emulated = false;
  std::optional<double> dilation;  // as given; unset: the cluster's, else 1
  std::string compute = "auto";
  MonitorOptions monitor;
};

void add_run_flags(CLI::App& app, RunFlags& flags);

struct RunSetup {
  TransportRequest transport;
  int emulate_nodes = 0;
  std::optional<FabricProfile> fabric;  // none: "real"
  bool emulated = false;                // --emulated or --emulate-nodes
  double dilation = 1;
  std::optional<ComputeModel> compute_model;  // --compute model:...
  std::string compute = "auto";

  // The BackendOptions fields these flags decide.
  void fill(BackendOptions& options) const;
};

// The flags parsed and checked once, without the backend: UsageError (one line) for values no
// run can use (--dilate, --emulate-nodes, --compute, --transport, --fabric, the monitor's), and
// inside an emulated cluster for a --fabric or --dilate that is not the cluster's. No MPI, no
// backend, so that --dry-run refuses what a run refuses.
RunSetup parse_run_flags(const RunFlags& flags, const std::optional<EmulatedCluster>& cluster);
// The same on the cluster this process runs on (find_emulated_cluster), if any.
RunSetup parse_run_flags(const RunFlags& flags);

// The checks of a parsed setup that need the backend and the host, then the MPI backend's
// transport settings applied to this process's environment. Call before MPI_Init.
RunSetup prepare_run(RunSetup parsed, BackendKind backend);
// parse_run_flags, then the above.
RunSetup prepare_run(const RunFlags& flags, BackendKind backend);

// Records the setup in the metadata: transport asked, fabric, emulated, dilation, compute, and
// for emulated nodes the node count and ranks per node.
void write_setup_to_metadata(RunMetadata& meta, const RunSetup& setup);

// Where the replayed parameters live, for --optimizer auto (torch runs foreach on CUDA only):
// "cpu" for a host replay (host buffers, --backend mpi, with host compute), else "cuda" (a GPU,
// or a modeled one).
std::string replay_param_device(bool host_buffers, const RunSetup& setup);

// Lines for the run header that a reader must not miss (the IPoIB trap: NCCL's socket transport
// on an ib* interface is TCP over InfiniBand ports, not Ethernet).
std::vector<std::string> run_notes(const RunMetadata& meta);

}  // namespace collreplay
