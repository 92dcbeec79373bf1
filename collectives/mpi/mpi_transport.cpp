#include "collectives/mpi/mpi_transport.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string_view>

#include "collectives/mpi/mpi_check.hpp"
#include "collectives/transport/transport_select.hpp"

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

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const std::size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

}  // namespace

std::vector<std::string> mpi_transport_interfaces(const std::string& transport) {
  const bool tcp = transport == "tcp" || transport.starts_with("ucx:tcp");
  const bool ucx = transport.starts_with("ucx");
  if (!tcp && !ucx) return {};  // self, shm: nothing crosses a network
  if (ucx) {
    if (const std::string devices = env_or_empty("UCX_NET_DEVICES");
        !devices.empty() && devices != "all")
      return split_list(devices);
  } else if (const std::string include = env_or_empty("OMPI_MCA_btl_tcp_if_include");
             !include.empty()) {
    std::set<std::string> names;
    for (const std::string& entry : split_list(include))
      for (const std::string& name : interfaces_in(entry)) names.insert(name);
    return {names.begin(), names.end()};
  }
  std::vector<std::string> all;
  if (tcp) {
    // OpenMPI's default: every interface that is up, but loopback.
    for (const std::string& name : probe_host_network().up_interfaces)
      if (name != "lo") all.push_back(name);
  } else {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/sys/class/infiniband", ec))
      all.push_back(entry.path().filename().string());
  }
  return all;
}

std::string selected_mpi_pml() {
  // OpenMPI 4.x exports the selected PML's component struct (mca_base_component_2_1_0_t):
  // project name at byte 12, type name at 40, component name at 84. The project and type names
  // are checked first, so another layout yields "" (unknown) rather than garbage.
  const auto* component =
      static_cast<const char*>(dlsym(RTLD_DEFAULT, "mca_pml_base_selected_component"));
  if (!component) return "";
  const auto field = [&](std::size_t at, std::size_t max) {
    return std::string(component + at, strnlen(component + at, max));
  };
  if (field(12, 16) != "ompi" || field(40, 32) != "pml") return "";
  return field(84, 64);
}

std::string detect_mpi_transport(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const bool one_node = all_ranks_on_one_node(comm);  // collective: every rank calls it
  if (size == 1) return "self";
  const std::string pml = selected_mpi_pml();
  if (!pml.empty() && pml != "ob1" && pml != "ucx") return pml;  // cm (psm2, ofi), ...
  const bool ucx =
      pml.empty() ? env_or_empty("OMPI_MCA_pml").find("ucx") != std::string::npos : pml == "ucx";
  if (ucx) {
    const std::string tls = env_or_empty("UCX_TLS");
    return tls.empty() ? "ucx" : "ucx:" + tls;
  }
  if (one_node && shared_memory_btl_allowed(env_or_empty("OMPI_MCA_btl"))) return "shm";
  return "tcp";
}

}  // namespace collreplay
