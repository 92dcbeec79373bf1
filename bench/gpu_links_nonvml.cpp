#include "bench/gpu_links.hpp"

namespace collreplay {

// Built without nvml.h: the link matrix cannot be read.
std::vector<std::vector<std::string>> read_gpu_links() { return {}; }

}  // namespace collreplay
