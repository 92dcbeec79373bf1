#include "bench/app/run/emulated_cluster.hpp"

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/errors.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;

std::map<std::string, std::string> key_values(const std::string& text) {
  std::map<std::string, std::string> values;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    std::string value = line.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    values[line.substr(0, eq)] = value;
  }
  return values;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The namespace file's identity: two paths name one namespace when device and inode agree.
std::optional<std::pair<dev_t, ino_t>> identity(const std::string& path) {
  struct stat s {};
  if (::stat(path.c_str(), &s) != 0) return std::nullopt;
  return std::make_pair(s.st_dev, s.st_ino);
}

}  // namespace

EmulatedCluster parse_cluster_state(const std::string& text, const std::string& path) {
  const std::map<std::string, std::string> values = key_values(text);
  auto field = [&](const std::string& key) {
    const auto it = values.find(key);
    if (it == values.end() || it->second.empty())
      throw UsageError("emulated cluster state " + path + " has no " + key +
                       " (bring the cluster down and up again)");
    return it->second;
  };
  EmulatedCluster cluster;
  cluster.prefix = field("CL_PREFIX");
  cluster.fabric = field("CL_FABRIC");
  cluster.fabrics_file = field("CL_FABRICS_FILE");
  cluster.state_file = path;
  const std::string nodes = field("CL_NODES"), dilation = field("CL_DILATE");
  std::size_t used = 0;
  try {
    cluster.nodes = std::stoi(nodes, &used);
    if (used != nodes.size() || cluster.nodes < 1) throw std::invalid_argument(nodes);
    cluster.dilation = std::stod(dilation, &used);
    if (used != dilation.size() || !(cluster.dilation > 0) || !std::isfinite(cluster.dilation))
      throw std::invalid_argument(dilation);
  } catch (const std::logic_error&) {
    throw UsageError("emulated cluster state " + path + ": CL_NODES '" + nodes +
                     "' or CL_DILATE '" + dilation + "' is not a positive number");
  }
  return cluster;
}

std::optional<EmulatedCluster> find_emulated_cluster(const ClusterPlaces& places) {
  const auto own = identity(places.own_netns);
  std::error_code error;
  if (!own || !fs::is_directory(places.registry_dir, error)) return std::nullopt;
  for (const fs::directory_entry& entry : fs::directory_iterator(places.registry_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".env") || name.starts_with(".")) continue;
    const std::string prefix = name.substr(0, name.size() - 4);
    // Only the registered prefix's node names are compared, so a cluster's state is read only
    // by the processes on its nodes.
    for (int i = 0;; ++i) {
      const std::string node = prefix + std::to_string(i);
      const auto node_id = identity(places.netns_dir + "/" + node);
      if (!node_id) break;
      if (*node_id != *own) continue;
      EmulatedCluster cluster = parse_cluster_state(read_text(entry.path()), entry.path().string());
      if (cluster.prefix != prefix || i >= cluster.nodes)
        throw UsageError("emulated cluster state " + entry.path().string() + " does not describe " +
                         node + " (bring the cluster down and up again)");
      cluster.node = node;
      return cluster;
    }
  }
  return std::nullopt;
}

}  // namespace collreplay
