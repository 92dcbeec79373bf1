#include "collectives/mpi/mpi_version.hpp"

#include <mpi.h>

namespace collreplay {

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int length = 0;
  if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "?";
  const std::string library(text, static_cast<std::size_t>(length));
  return library.substr(0, library.find_first_of(",\n"));
}

std::string mpi_standard_version() {
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace collreplay
