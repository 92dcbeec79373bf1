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

}  // namespace collreplay
