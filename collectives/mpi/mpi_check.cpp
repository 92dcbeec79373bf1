#include "collectives/mpi/mpi_check.hpp"

#include <string>

#include "common/errors.hpp"

namespace collreplay {

void throw_mpi_error(int code, const char* call_text, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = "unknown MPI error";
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw RuntimeError(std::string(call_text) + " failed at " + file + ":" + std::to_string(line) +
                     ": " + text);
}

namespace {

const char* thread_level_name(int level) {
  if (level == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
  if (level == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
  if (level == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
  if (level == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
  return "an unknown thread level";
}

}  // namespace

void require_mpi_thread_level(int provided, int required) {
  if (provided >= required) return;
  throw RuntimeError(std::string("the MPI library provides ") + thread_level_name(provided) +
                     ", but collreplay needs " + thread_level_name(required) +
                     " (compute threads run beside the thread that calls MPI)");
}

}  // namespace collreplay
