#include "collectives/mpi/mpi_transport.hpp"

#include <cstdlib>
#include <string_view>

#include "collectives/mpi/mpi_check.hpp"

namespace collreplay {
namespace {

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

bool all_ranks_on_one_node(MPI_Comm comm) {
  MPI_Comm local = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local));
  int local_size = 0, size = 0;
  MPI_Comm_size(local, &local_size);
  MPI_Comm_size(comm, &size);
  MPI_Comm_free(&local);
  int one_node = local_size == size ? 1 : 0;
  MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &one_node, 1, MPI_INT, MPI_MIN, comm));
  return one_node == 1;
}

// OMPI_MCA_btl is a list ("self,tcp") or an exclusion ("^vader").
bool shared_memory_btl_allowed(std::string_view btl) {
  if (btl.empty()) return true;
  const bool names_vader =
      btl.find("vader") != std::string_view::npos || btl.find("sm") != std::string_view::npos;
  return btl.front() == '^' ? !names_vader : names_vader;
}

}  // namespace

std::string detect_mpi_transport(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const bool one_node = all_ranks_on_one_node(comm);  // collective: every rank calls it
  if (size == 1) return "self";
  if (env_or_empty("OMPI_MCA_pml").find("ucx") != std::string::npos) {
    const std::string tls = env_or_empty("UCX_TLS");
    return tls.empty() ? "ucx" : "ucx:" + tls;
  }
  if (one_node && shared_memory_btl_allowed(env_or_empty("OMPI_MCA_btl"))) return "shm";
  return "tcp";
}

}  // namespace collreplay
