// MPI_CHECK(call): evaluates `call` once and throws RuntimeError with MPI's own error text when
// it is not MPI_SUCCESS. The communicators set MPI_ERRORS_RETURN so failures reach this check.
#pragma once
#include <mpi.h>

namespace collreplay {

void throw_mpi_error(int code, const char* call_text, const char* file, int line);

// Check of MPI_Init_thread's answer: RuntimeError naming both levels when the
// library gives less than `required` (compute threads run beside the thread that calls MPI).
void require_mpi_thread_level(int provided, int required);

inline void mpi_check(int code, const char* call_text, const char* file, int line) {
  if (code != MPI_SUCCESS) throw_mpi_error(code, call_text, file, line);
}

}  // namespace collreplay

#define MPI_CHECK(call) ::collreplay::mpi_check((call), #call, __FILE__, __LINE__)
