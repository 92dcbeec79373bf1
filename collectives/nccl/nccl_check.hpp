// NCCL_CHECK(call): evaluates `call` once; on failure throws RuntimeError naming the call, the
// file:line, NCCL's error string and NCCL's last detailed message. Only for sources built with
// CUDA.
#pragma once
#include <nccl.h>

#include <string>

#include "common/errors.hpp"

namespace collreplay {

inline void nccl_check(ncclResult_t status, const char* call, const char* file, int line) {
  if (status == ncclSuccess || status == ncclInProgress) return;
  std::string message = std::string(file) + ":" + std::to_string(line) + ": " + call +
                        " failed: " + ncclGetErrorString(status);
  // The last WARN NCCL printed (why a connection failed, which peer...), when it kept one.
  if (const char* detail = ncclGetLastError(nullptr); detail && *detail)
    message += std::string(" (") + detail + ")";
  throw RuntimeError(message);
}

}  // namespace collreplay

#define NCCL_CHECK(call) ::collreplay::nccl_check((call), #call, __FILE__, __LINE__)
