// The metadata every result record carries: who ran where, on what,
// with which libraries, transport, environment knobs and code revision. Collected once per run,
// collectively, then attached to each record as record["run"] = metadata.to_json().
//
//   RunMetadata meta = collect_run_metadata(comm, MPI_COMM_WORLD, command_line, "any");
//   meta.hosts[r], meta.devices[r]  // per rank, for table headers
#pragma once
#include <mpi.h>

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/communicator.hpp"

namespace collreplay {

inline constexpr int kResultsSchemaVersion = 1;

struct RunMetadata {
  int ranks = 0;
  int nodes = 0;
  int ranks_per_node = 0;            // the largest count of ranks on one host
  std::vector<std::string> hosts;    // by world rank
  std::vector<std::string> devices;  // by world rank: Communicator::device_description()
  std::map<std::string, std::string> library_versions;  // communicator's + mpi + ucx if loaded
  std::string backend;
  std::string transport_asked;          // "any" when not asked
  std::string transport_verified;       // Communicator::transport()
  std::vector<std::string> interfaces;  // used by the transport, all ranks' together
  std::string fabric = "real";          // fabric profile the run stands for (--fabric)
  bool emulated = false;                // emulated cluster or emulated nodes
  double dilation = 1;                  // --dilate (reported times are already divided by it)
  std::string compute = "auto";         // --compute
  std::map<std::string, std::string> nccl_algo;  // Communicator::algorithms(), refreshed at the end
  std::map<std::string, std::string>
      environment;  // NCCL_*, UCX_*, OMPI_MCA_*, CUDA_VISIBLE_DEVICES (rank 0)
  std::string git_revision;
  // NCCL_ALGO / NCCL_PROTO as the communicators started with them ("" : NCCL chose freely);
  // nccl_algo above is what NCCL then reported choosing.
  std::string nccl_algo_asked, nccl_proto_asked;
  std::vector<std::string> command_line;
  std::string timestamp_utc;  // ISO 8601, when collected
  nlohmann::json launcher;    // {"kind": mpirun|srun|other} + Slurm job, step, nodelist
  int schema_version = kResultsSchemaVersion;

  nlohmann::json to_json() const;
};

// Collective over `world` (every rank calls it; every rank gets the full result).
RunMetadata collect_run_metadata(const Communicator& comm, MPI_Comm world,
                                 const std::vector<std::string>& command_line,
                                 const std::string& transport_asked);

}  // namespace collreplay
