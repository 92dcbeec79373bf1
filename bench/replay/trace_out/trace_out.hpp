// `replay --trace-out FILE`: the measured step as a Chrome trace (trace_document.hpp). Every rank
// sends its own step (its schedule, its op times) to rank 0, which writes. Each file goes to
// "<FILE>.partial" and is renamed over FILE once whole (common/atomic_file.hpp); a run that fails
// leaves no file, not even a partial one. A FILE ending in ".gz" is written gzip'd, as
// tensorboard_trace_handler(use_gzip=True) writes its traces.
#pragma once
#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/compute/compute_model.hpp"
#include "bench/executor/executor.hpp"
#include "bench/replay/trace_out/trace_document.hpp"
#include "common/atomic_file.hpp"

namespace collreplay {

// What the file says beyond the schedule and its times.
struct TraceOutContext {
  double compute_scale = 1;
  std::optional<ComputeModel> compute_model;  // the run's modeled GPU, if any: the kernels' shares
  int node_color = 0;                         // this rank's host (GroupKind::node's members)
  std::string backend, engine;
  std::vector<std::string> devices;  // by rank
};

class TraceOut {
 public:
  // Collective over `comm`. Empty `path`: off. Rank 0 opens the file(s) now (a path with "%d":
  // one per rank), so that a path it cannot write stops every rank alike before the run
  // (UsageError naming it).
  TraceOut(std::string path, MPI_Comm comm, double timeout_s);
  ~TraceOut();
  bool enabled() const { return !path_.empty(); }

  // Collective when enabled (nothing otherwise): every rank's schedule and its op times in its
  // median step of `overlapped` (the overlapped pass) to rank 0, which writes and commits.
  // Returns the paths written on rank 0, nothing elsewhere.
  std::vector<std::string> write(const Schedule& schedule, const PassResult& overlapped,
                                 const TraceOutContext& context);

 private:
  std::string path_;
  MPI_Comm comm_;
  double timeout_s_;
  int rank_ = 0, world_ = 1;
  bool per_rank_ = false;
  std::vector<std::unique_ptr<AtomicFile>> files_;  // rank 0: one, or one per rank
};

}  // namespace collreplay
