#include "bench/app/run/run_metadata.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <set>
#include <string_view>

#include "collectives/mpi/mpi_check.hpp"
#include "collectives/mpi/mpi_version.hpp"
#include "collectives/mpi/mpi_watched.hpp"
#include "common/data_files.hpp"
#include "common/host_identity.hpp"

extern char** environ;

namespace collreplay {
namespace {

// The checkout's revision at the last build, as the Makefile writes it into the build tree
// (gen/git_revision beside bin/, installed under share/collreplay): read at run time, so that a
// commit rebuilds nothing.
std::string built_revision() {
  const std::string path = find_data_file("gen/git_revision");
  std::ifstream in(path);
  std::string revision;
  if (path.empty() || !std::getline(in, revision) || revision.empty()) return "unknown";
  return revision;
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

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value ? value : fallback;
}

// What started the ranks (mpirun's daemons leave orte_hnp_uri), and inside a Slurm allocation
// the job, step and nodes, so a result can be traced to its batch job.
nlohmann::json launcher_description() {
  nlohmann::json launcher = {{"kind", std::getenv("OMPI_MCA_orte_hnp_uri") ? "mpirun"
                                      : std::getenv("SLURM_STEP_ID")       ? "srun"
                                                                           : "other"}};
  if (std::getenv("SLURM_JOB_ID")) {
    launcher["slurm_job_id"] = env_or("SLURM_JOB_ID", "");
    launcher["slurm_step_id"] = env_or("SLURM_STEP_ID", "");
    launcher["nodelist"] = env_or("SLURM_STEP_NODELIST", env_or("SLURM_JOB_NODELIST", "").c_str());
  }
  return launcher;
}

std::string joined_names(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ",") + n;
  return text;
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

RunMetadata collect_run_metadata(const Communicator& comm, MPI_Comm world,
                                 const std::vector<std::string>& command_line,
                                 const std::string& transport_asked) {
  RunMetadata meta;
  meta.hosts = all_gather_strings(world, host_name());
  meta.devices = all_gather_strings(world, comm.device_description());
  meta.ranks = static_cast<int>(meta.hosts.size());
  std::map<std::string, int> per_host;
  for (const std::string& host : meta.hosts) ++per_host[host];
  meta.nodes = static_cast<int>(per_host.size());
  for (const auto& [host, count] : per_host)
    meta.ranks_per_node = std::max(meta.ranks_per_node, count);
  meta.library_versions = comm.library_versions();
  if (!meta.library_versions.contains("mpi")) meta.library_versions["mpi"] = mpi_library_version();
  if (std::string ucx = ucx_version(); !ucx.empty()) meta.library_versions["ucx"] = ucx;
  meta.backend = comm.backend() == BackendKind::nccl ? "nccl" : "mpi";
  meta.transport_asked = transport_asked;
  meta.transport_verified = comm.transport();
  std::set<std::string> interfaces;
  for (const std::string& names : all_gather_strings(world, joined_names(comm.interfaces())))
    for (std::size_t at = 0; at < names.size();) {
      const std::size_t comma = std::min(names.find(',', at), names.size());
      if (comma > at) interfaces.insert(names.substr(at, comma - at));
      at = comma + 1;
    }
  meta.interfaces.assign(interfaces.begin(), interfaces.end());
  meta.nccl_algo = comm.algorithms();
  meta.environment = relevant_environment();
  meta.nccl_algo_asked =
      meta.environment.count("NCCL_ALGO") ? meta.environment.at("NCCL_ALGO") : "";
  meta.nccl_proto_asked =
      meta.environment.count("NCCL_PROTO") ? meta.environment.at("NCCL_PROTO") : "";
  meta.git_revision = built_revision();
  meta.command_line = command_line;
  meta.timestamp_utc = now_utc();
  meta.launcher = launcher_description();
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
          {"interfaces", interfaces},
          {"fabric", fabric},
          {"emulated", emulated},
          {"dilation", dilation},
          {"compute", compute},
          {"nccl_algo", nccl_algo},
          {"environment", environment},
          {"git_revision", git_revision},
          {"nccl_algo_asked", nccl_algo_asked},
          {"nccl_proto_asked", nccl_proto_asked},
          {"command_line", command_line},
          {"launcher", launcher}};
}

}  // namespace collreplay
