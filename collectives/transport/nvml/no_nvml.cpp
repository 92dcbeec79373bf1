#include "collectives/transport/nvlink.hpp"

namespace collreplay {

// Built without nvml.h: NVLink cannot be asked about, so the answer is "unknown".
int active_nvlink_count(const std::string&) { return -1; }

}  // namespace collreplay
