// nvmlInit / nvmlShutdown for one scope (NVML counts them, so scopes nest). Without a driver
// nvmlInit fails and ok() is false, why() says so. Included only by sources in nvml/ folders (built
// where nvml.h exists).
#pragma once
#include <nvml.h>

#include <string>

namespace collreplay {

class NvmlSession {
 public:
  NvmlSession() : status_(nvmlInit()) {}
  ~NvmlSession() {
    if (status_ == NVML_SUCCESS) nvmlShutdown();
  }
  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;
  bool ok() const { return status_ == NVML_SUCCESS; }
  std::string why() const {
    return std::string("NVML could not start: ") + nvmlErrorString(status_);
  }

 private:
  nvmlReturn_t status_;
};

}  // namespace collreplay
