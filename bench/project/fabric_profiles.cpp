#include "bench/project/fabric_profiles.hpp"

#include <unistd.h>

#include <filesystem>

#include "common/errors.hpp"

namespace collreplay::project {

FabricProfile find_fabric_profile(const std::vector<FabricProfile>& profiles,
                                  const std::string& name) {
  std::string known;
  for (const FabricProfile& p : profiles) {
    if (p.name == name) {
      if (p.node_gbit_s <= 0)
        throw UsageError("fabric profile '" + name + "' has no bandwidth to project with");
      return p;
    }
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw UsageError("unknown fabric '" + name +
                   "' (neither a results folder nor a profile: " + known + ")");
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
