#include "bench/run_metadata.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <ctime>
#include <set>
#include <string_view>

#include "collectives/mpi_check.hpp"

extern char** environ;

#ifndef COLLREPLAY_GIT_REVISION
#define COLLREPLAY_GIT_REVISION "unknown"  // set by the Makefile
#endif

namespace collreplay {
namespace {

std::string host_name() {
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  return host;
}

// UCX reports its version only when it is already loaded (MPI with pml ucx) or installed; the
// symbol is looked up at run time so the build needs no UCX headers.
std::string ucx_version() {
  void* library = dlopen("libucp.so.0", RTLD_LAZY | RTLD_NOLOAD);
  if (!library) library = dlopen("libucp.so.0", RTLD_LAZY);
  if (!library) return "";
  using VersionFn = const char* (*)();
  auto fn = reinterpret_cast<VersionFn>(dlsym(library, "ucp_get_version_string"));
  std::string version = fn ? fn() : "";
  dlclose(library);
  return version;
}

std::map<std::string, std::string> relevant_environment() {
  std::map<std::string, std::string> knobs;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string_view text(*entry);
    const std::size_t eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = text.substr(0, eq);
    // mpirun also passes its own launch plumbing as OMPI_MCA_*; those are not knobs.
    if (name.starts_with("OMPI_MCA_orte_") || name.starts_with("OMPI_MCA_ess") ||
        name.starts_with("OMPI_MCA_pmix") || name == "OMPI_MCA_initial_wdir")
      continue;
    if (name.starts_with("NCCL_") || name.starts_with("UCX_") || name.starts_with("OMPI_MCA_") ||
        name == "CUDA_VISIBLE_DEVICES")
      knobs.emplace(name, text.substr(eq + 1));
  }
  return knobs;
}

std::string now_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

std::vector<std::string> allgather_strings(MPI_Comm comm, const std::string& mine) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  MPI_CHECK(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm));
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_CHECK(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(),
                           offsets.data(), MPI_CHAR, comm));
  std::vector<std::string> out;
  for (int r = 0; r < size; ++r)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                             static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
  return out;
}

RunMetadata collect_run_metadata(const Communicator& comm, MPI_Comm world,
                                 const std::vector<std::string>& command_line,
                                 const std::string& transport_asked) {
  RunMetadata meta;
  meta.hosts = allgather_strings(world, host_name());
  meta.devices = allgather_strings(world, comm.device_description());
  meta.ranks = static_cast<int>(meta.hosts.size());
  std::map<std::string, int> per_host;
  for (const std::string& host : meta.hosts) ++per_host[host];
  meta.nodes = static_cast<int>(per_host.size());
  for (const auto& [host, count] : per_host) meta.ranks_per_node = std::max(meta.ranks_per_node, count);
  meta.library_versions = comm.library_versions();
  if (!meta.library_versions.contains("mpi")) {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int length = 0;
    MPI_Get_library_version(text, &length);
    std::string library(text, static_cast<std::size_t>(length));
    if (auto end = library.find_first_of(",\n"); end != std::string::npos) library.resize(end);
    meta.library_versions["mpi"] = library;
  }
  if (std::string ucx = ucx_version(); !ucx.empty()) meta.library_versions["ucx"] = ucx;
  meta.backend = comm.backend() == BackendKind::nccl ? "nccl" : "mpi";
  meta.transport_asked = transport_asked;
  meta.transport_verified = comm.transport();
  meta.environment = relevant_environment();
  meta.nccl_algo = meta.environment.count("NCCL_ALGO") ? meta.environment.at("NCCL_ALGO") : "";
  meta.nccl_proto = meta.environment.count("NCCL_PROTO") ? meta.environment.at("NCCL_PROTO") : "";
  meta.git_revision = COLLREPLAY_GIT_REVISION;
  meta.command_line = command_line;
  meta.timestamp_utc = now_utc();
  return meta;
}

nlohmann::json RunMetadata::to_json() const {
  return {{"schema_version", schema_version},
          {"timestamp", timestamp_utc},
          {"ranks", ranks},
          {"nodes", nodes},
          {"ranks_per_node", ranks_per_node},
          {"hosts", hosts},
          {"devices", devices},
          {"library_versions", library_versions},
          {"backend", backend},
          {"transport_asked", transport_asked},
          {"transport_verified", transport_verified},
          {"environment", environment},
          {"git_revision", git_revision},
          {"nccl_algo", nccl_algo},
          {"nccl_proto", nccl_proto},
          {"command_line", command_line}};
}

}  // namespace collreplay
