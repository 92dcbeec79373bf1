// Error types and the exit codes they map to. Thrown anywhere inside; caught once, in
// bench/app/guarded_main.cpp, which prints one line and returns the code.
#pragma once
#include <stdexcept>
#include <string>

namespace collreplay {

enum ExitCode : int {
  kExitOk = 0,
  kExitRuntime = 1,            // a library (MPI, NCCL, CUDA, BLAS) or the system failed
  kExitUsage = 2,              // bad command line, model, schedule or size: nothing was run
  kExitDataMismatch = 3,       // a collective's result failed its exact check (#wrong > 0)
  kExitTimeout = 4,            // a collective did not finish within the watchdog timeout
  kExitTransportMismatch = 5,  // the transport asked for is not the one in use
  kExitPreflight = 6,          // preflight --strict found an unhealthy or slow rank
  kExitNothingTested = 7,      // compare: no paired time carried samples: nothing was tested
};

// Bad input: the same on every rank, detected before any communicator exists where possible.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A library call failed or the system misbehaved.
struct RuntimeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct DataMismatchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TimeoutError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TransportMismatchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct PreflightError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace collreplay
