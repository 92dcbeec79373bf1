#include "bench/app/guarded_main.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "collectives/mpi/mpi_check.hpp"
#include "common/errors.hpp"
#include "common/host_identity.hpp"

namespace collreplay {
namespace {

constexpr int kFailureTag = 0x7ae1;  // never used by any other message on MPI_COMM_WORLD
// Ranks that fail alike fail within moments of each other (they check the same thing at the
// same point); a rank still missing after this long is elsewhere.
constexpr double kAgreementWindowS = 10;

bool mpi_active() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

int mpi_rank_or_launcher() {
  if (!mpi_active()) return launcher_rank();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int mpi_world_size() {
  if (!mpi_active()) return 1;
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

const char* program_name(char** argv) {
  const char* name = argv && argv[0] ? argv[0] : "collreplay";
  for (const char* p = name; *p; ++p)
    if (*p == '/') name = p + 1;
  return name;
}

int exit_alone(const char* program, const char* what, int code);

// Every rank sees the same bad input: rank 0 speaks, all exit quietly with the same code. If
// some rank did not fail, it is waiting somewhere for this one: end the job instead.
int exit_agreed(const char* program, const char* what, int code) {
  if (mpi_active() && mpi_world_size() > 1 && !all_ranks_failed_within(kAgreementWindowS))
    return exit_alone(program, what, code);
  if (mpi_rank_or_launcher() == 0) std::fprintf(stderr, "%s: error: %s\n", program, what);
  if (mpi_active()) MPI_Finalize();
  return code;
}

// One rank failed: say which, and do not leave the others waiting on it.
int exit_alone(const char* program, const char* what, int code) {
  if (mpi_world_size() > 1)
    std::fprintf(stderr, "%s: error: rank %d on %s: %s\n", program, mpi_rank_or_launcher(),
                 host_name().c_str(), what);
  else
    std::fprintf(stderr, "%s: error: %s\n", program, what);
  std::fflush(stderr);
  if (mpi_active()) {
    if (mpi_world_size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
    MPI_Finalize();
  }
  return code;
}

}  // namespace

bool all_ranks_failed_within(double window_s) {
  if (!mpi_active() || mpi_world_size() == 1) return true;
  const int size = mpi_world_size(), rank = mpi_rank_or_launcher();
  static const int kFailed = 1;  // read by the sends after this call may have returned
  std::vector<int> received(size, 0);
  std::vector<MPI_Request> requests;
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    requests.emplace_back();
    MPI_Irecv(&received[peer], 1, MPI_INT, peer, kFailureTag, MPI_COMM_WORLD, &requests.back());
    requests.emplace_back();
    MPI_Isend(&kFailed, 1, MPI_INT, peer, kFailureTag, MPI_COMM_WORLD, &requests.back());
  }
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  for (;;) {
    int done = 0;
    MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return true;
    if (std::chrono::duration<double>(Clock::now() - start).count() > window_s) {
      // The receive buffers must outlive the unmatched receives: the process ends soon.
      new std::vector<int>(std::move(received));
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

int launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* value = std::getenv(var)) return std::atoi(value);
  return 0;
}

MpiSession::MpiSession(int* argc, char*** argv) {
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw RuntimeError("MPI_Init_thread failed");
  require_mpi_thread_level(provided, MPI_THREAD_FUNNELED);
}

MpiSession::~MpiSession() {
  if (std::uncaught_exceptions() == 0 && mpi_active()) MPI_Finalize();
}

int guarded_main(int argc, char** argv, const std::function<int(int, char**)>& body) {
  const char* program = program_name(argv);
  try {
    return body(argc, argv);
  } catch (const UsageError& e) {
    return exit_agreed(program, e.what(), kExitUsage);
  } catch (const DataMismatchError& e) {
    return exit_alone(program, e.what(), kExitDataMismatch);
  } catch (const TimeoutError& e) {
    return exit_alone(program, e.what(), kExitTimeout);
  } catch (const TransportMismatchError& e) {
    return exit_agreed(program, e.what(), kExitTransportMismatch);
  } catch (const PreflightError& e) {
    return exit_agreed(program, e.what(), kExitPreflight);
  } catch (const std::exception& e) {
    return exit_alone(program, e.what(), kExitRuntime);
  }
}

}  // namespace collreplay
