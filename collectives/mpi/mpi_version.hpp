// The MPI library's version for run metadata: its first line up to the first comma
// ("Open MPI v4.1.6"), which names the implementation and release without the build details.
#pragma once
#include <string>

namespace collreplay {

std::string mpi_library_version();
std::string mpi_standard_version();  // "3.1"

}  // namespace collreplay
