// The fabric profiles of sweeps/fabrics.tsv (name, node_gbit_s, latency_us, links, description),
// read so that --fabric NAME is checked against the same file the emulated cluster shapes from.
// The file is where --fabrics-file says, else sweeps/fabrics.tsv found by the project's one rule
// for its data (common/data_files.hpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace collreplay {

struct FabricProfile {
  std::string name;
  double node_gbit_s = 0;  // 0: unshaped
  double latency_us = 0;
  int links = 1;
  std::string description;
};

// Every profile of the file; UsageError when it cannot be read or a line does not parse.
std::vector<FabricProfile> read_fabric_profiles(const std::string& path);

// sweeps/fabrics.tsv by common/data_files.hpp's rule; UsageError when no root holds it.
std::string default_fabrics_file();

// "real" (no profile: the run is on the real fabric) is always accepted. Otherwise the profile
// of that name in `path` (default_fabrics_file() when empty); UsageError naming the known ones.
std::optional<FabricProfile> check_fabric(const std::string& name, const std::string& path);

}  // namespace collreplay
