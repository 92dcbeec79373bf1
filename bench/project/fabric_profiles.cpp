#include "bench/project/fabric_profiles.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/errors.hpp"

namespace collreplay::project {

std::vector<FabricProfile> load_fabric_profiles(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read fabric profiles file '" + path + "'");
  std::vector<FabricProfile> profiles;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    FabricProfile p;
    if (!(fields >> p.name) || p.name[0] == '#' || p.name == "name") continue;
    if (!(fields >> p.node_gbit_s >> p.latency_us >> p.links) || p.node_gbit_s < 0 ||
        p.latency_us < 0 || p.links < 1)
      throw UsageError(path + ":" + std::to_string(number) +
                       ": expected name node_gbit_s latency_us links description");
    std::getline(fields >> std::ws, p.description);
    profiles.push_back(p);
  }
  return profiles;
}

FabricProfile find_fabric_profile(const std::vector<FabricProfile>& profiles, const std::string& name) {
  std::string known;
  for (const FabricProfile& p : profiles) {
    if (p.name == name) {
      if (p.node_gbit_s <= 0)
        throw UsageError("fabric profile '" + name + "' has no bandwidth to project with");
      return p;
    }
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw UsageError("unknown fabric '" + name + "' (neither a results folder nor a profile: " + known + ")");
}

TierParams inter_tier_of(const FabricProfile& p) {
  return TierParams{p.latency_us, p.node_gbit_s / 8.0, 0, 1};
}

std::string find_beside_executable(const std::vector<std::string>& candidates) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  for (const std::string& c : candidates) {
    const std::filesystem::path p = self.parent_path() / c;
    if (std::filesystem::exists(p, ec)) return std::filesystem::weakly_canonical(p, ec).string();
  }
  return "";
}

}  // namespace collreplay::project
