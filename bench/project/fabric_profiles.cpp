#include "bench/project/fabric_profiles.hpp"

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

}  // namespace collreplay::project
