// Fabric profiles (sweeps/fabrics.tsv): the nominal inter-node tier of a named fabric, and where
// the file lives relative to the executable.
#pragma once
#include <string>
#include <vector>

#include "bench/project/model/cost_model.hpp"

namespace collreplay::project {

struct FabricProfile {
  std::string name;
  double node_gbit_s = 0;   // all NICs of a node together; 0 = unshaped (no bandwidth known)
  double latency_us = 0;
  int links = 1;
  std::string description;
};

// Parses the whitespace-separated table ('#' comments, a header line starting with "name").
// Throws UsageError naming the file and line when a row is malformed.
std::vector<FabricProfile> load_fabric_profiles(const std::string& path);

// The profile called `name`; UsageError listing the known names when there is none, or when it
// has no bandwidth (unshaped).
FabricProfile find_fabric_profile(const std::vector<FabricProfile>& profiles, const std::string& name);

// The inter-node tier a profile stands for: nominal, no efficiency curve.
TierParams inter_tier_of(const FabricProfile& profile);

// The first of `candidates` (paths relative to the executable's directory) that exists, or "".
std::string find_beside_executable(const std::vector<std::string>& candidates);

}  // namespace collreplay::project
