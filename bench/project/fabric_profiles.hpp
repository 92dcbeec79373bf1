// What the projection takes from the fabric profiles (read by bench/app/run/fabric_profiles):
// the nominal inter-node tier of a named fabric.
#pragma once
#include <string>
#include <vector>

#include "bench/app/run/fabric_profiles.hpp"
#include "bench/project/model/cost_model.hpp"

namespace collreplay::project {

// The profile called `name`; UsageError listing the known names when there is none, or when it
// has no bandwidth (unshaped).
FabricProfile find_fabric_profile(const std::vector<FabricProfile>& profiles,
                                  const std::string& name);

// The inter-node tier a profile stands for: nominal, no efficiency curve.
TierParams inter_tier_of(const FabricProfile& profile);

}  // namespace collreplay::project
