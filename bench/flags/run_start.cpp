#include "bench/flags/run_start.hpp"

#include <mpi.h>

#include "bench/app/setup_watchdog.hpp"
#include "collectives/mpi/mpi_watched.hpp"
#include "collectives/transport/transport_select.hpp"
#include "common/errors.hpp"

namespace collreplay {

namespace {
constexpr double kBackstopExtraS = 5;
}  // namespace

double setup_backstop_s(double timeout_s) { return timeout_s > 0 ? timeout_s + kBackstopExtraS : 0; }

StartedRun start_run(BackendKind backend, const RunSetup& setup, BackendOptions options,
                     const std::vector<std::string>& command_line, double timeout_s) {
  SetupWatchdog watchdog(setup_backstop_s(timeout_s),
                         std::string("communicator setup (") +
                             (backend == BackendKind::nccl ? "NCCL" : "MPI") + ")");
  options.timeout_seconds = timeout_s;
  setup.fill(options);
  StartedRun run;
  run.comm = make_communicator(backend, MPI_COMM_WORLD, options);
  run.comm->barrier();  // a first collective, so that transport() reports what is really used
  watchdog.step("collecting run metadata");
  run.meta = collect_run_metadata(*run.comm, MPI_COMM_WORLD, command_line, setup.transport.name());
  watchdog.disarm();
  write_setup_to_metadata(run.meta, setup);
  const int mismatch =
      transport_matches(run.meta.transport_asked, run.meta.transport_verified) ? 0 : 1;
  if (max_across_ranks(MPI_COMM_WORLD, mismatch, timeout_s) > 0)
    throw TransportMismatchError("--transport " + run.meta.transport_asked +
                                 " was asked for, but " + run.meta.backend + " uses " +
                                 run.meta.transport_verified);
  return run;
}

}  // namespace collreplay
