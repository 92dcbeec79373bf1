// Every program's start-up once MPI is up, written once so that replay and the perf programs
// cannot drift: the communicator, its first collective (so that the transport reported is the one
// really used), the run's metadata with the setup the flags chose, and the check that the
// transport asked for is the one used. Communicator setup blocks inside MPI and NCCL (bootstrap,
// splits) where no timeout reaches, so a watchdog guards it: a rank that never arrives ends the
// job (exit 4) instead of hanging it.
//
//   MpiSession mpi(&argc, &argv);
//   StartedRun run = start_run(backend, setup, backend_options, command_line, timeout_s);
//   run.comm->all_gather(...); record["run"] = run.meta.to_json();
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "bench/app/run/run_metadata.hpp"
#include "bench/flags/run_flags.hpp"
#include "collectives/backend.hpp"
#include "collectives/communicator.hpp"

namespace collreplay {

struct StartedRun {
  std::unique_ptr<Communicator> comm;
  RunMetadata meta;  // nccl_algo is what NCCL reported so far: refresh it before writing
};

// How long a blocking setup step may take before its watchdog ends the job: a little after the
// library-level timeouts (NCCL init, cross-rank gathers), so that theirs name the step when they
// can. 0 (never) when timeout_s is 0 (--timeout 0: no watchdogs).
double setup_backstop_s(double timeout_s);

// Collective over MPI_COMM_WORLD. `options` carries what only the caller knows (buffer
// registration); the timeout and the setup's fields are filled here. Throws
// TransportMismatchError on every rank alike when the transport used is not the one asked for,
// TimeoutError when another rank does not reach the check within `timeout_s`.
StartedRun start_run(BackendKind backend, const RunSetup& setup, BackendOptions options,
                     const std::vector<std::string>& command_line, double timeout_s);

}  // namespace collreplay
