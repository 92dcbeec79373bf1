// Helpers shared by the NCCL backend's sources (setup, ops, metadata); not part of its interface.
#pragma once
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <unistd.h>
#include <cstdint>

#include <string>

#include "collectives/nccl/nccl_communicator.hpp"
#include "collectives/transport/nccl_log.hpp"
#include "common/errors.hpp"
#include "common/host_identity.hpp"

namespace collreplay {

inline constexpr int kNcclHostNameBytes = 256;
inline constexpr int kNcclBusIdBytes = 32;

inline ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::bf16: return ncclBfloat16;
    case DType::f16: return ncclFloat16;
    case DType::f32: return ncclFloat32;
    case DType::f64: return ncclFloat64;
    // NCCL reduces fp8 on sm_90 and later only; it moves it everywhere (2.24 and later).
    case DType::fp8: return ncclFloat8e4m3;
    case DType::fp8_e5m2: return ncclFloat8e5m2;
    case DType::i8: return ncclInt8;
    case DType::u8: return ncclUint8;
    case DType::i32: return ncclInt32;
    case DType::u32: return ncclUint32;
    case DType::i64: return ncclInt64;
    case DType::u64: return ncclUint64;
  }
  throw UsageError("unsupported dtype for NCCL");
}

inline ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return ncclSum;
    case ReduceOp::prod: return ncclProd;
    case ReduceOp::min: return ncclMin;
    case ReduceOp::max: return ncclMax;
    case ReduceOp::avg: return ncclAvg;
  }
  throw UsageError("unsupported reduction for NCCL");
}

inline std::string bus_id_of(int device) {
  char bus[kNcclBusIdBytes] = "";
  if (device < 0 || cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess) {
    cudaGetLastError();
    return {};
  }
  return bus;
}

// Attributes what NCCL logs during one call to this communicator (connections are made lazily,
// inside the call that first needs them, on the calling thread). Once kQuietCallsToStop calls in
// a row have logged nothing, the communicator's connections are made and later calls go
// unbracketed: what they might still log (another algorithm's connections over the same paths)
// stays in the process log, which transport_evidence() also reads.
class NcclCommunicator::LogWindow {
 public:
  static constexpr int kQuietCallsToStop = 16;
  explicit LogWindow(NcclCommunicator& owner)
      : owner_(owner),
        open_(owner.quiet_log_calls_ < kQuietCallsToStop),
        begin_(open_ ? NcclLogTap::for_process().size_bytes() : 0) {}
  ~LogWindow() {
    if (!open_) return;
    const std::uint64_t end = NcclLogTap::for_process().size_bytes();
    if (end == begin_) {
      ++owner_.quiet_log_calls_;
      return;
    }
    owner_.log_spans_.push_back({begin_, end});
    owner_.quiet_log_calls_ = 0;
  }
  LogWindow(const LogWindow&) = delete;
  LogWindow& operator=(const LogWindow&) = delete;

 private:
  NcclCommunicator& owner_;
  bool open_;
  std::uint64_t begin_;
};

template <typename Launch>
void NcclCommunicator::watched(const LibraryCall& call, Launch&& launch) {
  ncclResult_t issued = ncclSuccess;
  {
    const CallWatchdog::Scope scope(*watchdog_, call);
    issued = launch();
  }
  settle(issued, call);
}

}  // namespace collreplay
