#include "bench/app/run/fabric_profiles.hpp"

#include <fstream>
#include <sstream>

#include "common/data_files.hpp"
#include "common/errors.hpp"

namespace collreplay {

std::vector<FabricProfile> read_fabric_profiles(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read the fabric profiles " + path + " (give --fabrics-file)");
  std::vector<FabricProfile> profiles;
  std::string line;
  int number = 0;
  bool header_seen = false;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#' || line.find_first_not_of(" \t") == std::string::npos)
      continue;
    std::istringstream fields(line);
    FabricProfile p;
    if (!header_seen && line.starts_with("name")) {
      header_seen = true;
      continue;
    }
    if (!(fields >> p.name >> p.node_gbit_s >> p.latency_us >> p.links) || p.node_gbit_s < 0 ||
        p.latency_us < 0 || p.links < 1)
      throw UsageError(path + ":" + std::to_string(number) +
                       ": expected name node_gbit_s latency_us links description");
    std::getline(fields >> std::ws, p.description);
    profiles.push_back(std::move(p));
  }
  return profiles;
}

std::string default_fabrics_file() {
  return require_data_file("sweeps/fabrics.tsv", "--fabrics-file");
}

std::optional<FabricProfile> check_fabric(const std::string& name, const std::string& path) {
  if (name == "real") return std::nullopt;
  if (name.empty()) throw UsageError("--fabric is empty (use real or a profile name)");
  const std::string file = path.empty() ? default_fabrics_file() : path;
  const std::vector<FabricProfile> profiles = read_fabric_profiles(file);
  std::string known = "real";
  for (const FabricProfile& p : profiles) {
    if (p.name == name) return p;
    known += ", " + p.name;
  }
  throw UsageError("unknown --fabric '" + name + "' (profiles in " + file + ": " + known + ")");
}

}  // namespace collreplay
