// The NCCL communicator's metadata, memory and completion (its setup and teardown are in
// nccl_setup.cpp, its collectives in nccl_ops.cpp, its transport evidence in nccl_transport.cpp).
#include "collectives/nccl/nccl_communicator.hpp"

#include <cstdlib>
#include <cstring>

#include "collectives/device/cuda_check.hpp"
#include "collectives/device/cuda_event.hpp"
#include "collectives/nccl/nccl_check.hpp"
#include "collectives/nccl/nccl_internal.hpp"
#include "common/errors.hpp"

namespace collreplay {
// ---- metadata ----

std::string NcclCommunicator::device_description() const {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
  return std::string(prop.name) + " (GPU " + std::to_string(device_) + ", bus " +
         bus_id_of(device_) + ")";
}

std::map<std::string, std::string> NcclCommunicator::library_versions() const {
  std::map<std::string, std::string> versions;
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess)
    versions["nccl"] = std::to_string(nccl / 10000) + "." + std::to_string(nccl % 10000 / 100) +
                       "." + std::to_string(nccl % 100);
  int runtime = 0, driver = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    versions["cuda_runtime"] =
        std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
  if (cudaDriverGetVersion(&driver) == cudaSuccess)
    versions["cuda_driver"] =
        std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int length = 0;
  if (MPI_Get_library_version(mpi, &length) == MPI_SUCCESS) {
    std::string text(mpi, static_cast<std::size_t>(length));
    versions["mpi"] = text.substr(0, text.find_first_of(",\n"));
  }
  return versions;
}

std::string NcclCommunicator::bus_id() const { return bus_id_of(device_); }

// ---- memory ----

void* NcclCommunicator::allocate(std::size_t bytes) {
  CUDA_CHECK(cudaSetDevice(device_));
  void* buffer = nullptr;
  const std::size_t asked = bytes == 0 ? 1 : bytes;
  if (!register_buffers_) {
    const CallWatchdog::Scope scope(*watchdog_, "cudaMalloc");
    CUDA_CHECK(cudaMalloc(&buffer, asked));
    return buffer;
  }
  {
    const CallWatchdog::Scope scope(*watchdog_, "ncclMemAlloc");
    NCCL_CHECK(ncclMemAlloc(&buffer, asked));
  }
  void* handle = nullptr;
  try {
    watched("ncclCommRegister",
            [&] { return ncclCommRegister(state_->comm, buffer, asked, &handle); });
  } catch (...) {
    ncclMemFree(buffer);
    throw;
  }
  registrations_[buffer] = handle;
  return buffer;
}

void NcclCommunicator::release(void* buffer) {
  if (!buffer) return;
  const auto registered = registrations_.find(buffer);
  if (registered == registrations_.end()) {
    const CallWatchdog::Scope scope(*watchdog_, "cudaFree");  // waits for the device
    CUDA_CHECK(cudaFree(buffer));
    return;
  }
  if (state_->comm && !state_->broken)
    watched("ncclCommDeregister",
            [&] { return ncclCommDeregister(state_->comm, registered->second); });
  registrations_.erase(registered);
  const CallWatchdog::Scope scope(*watchdog_, "ncclMemFree");
  NCCL_CHECK(ncclMemFree(buffer));
}

// On the communicator's stream, so a copy sees the results of every collective issued before it
// (and waits for them: watched, as a collective that never ends would hold it for ever).
void NcclCommunicator::copy_from_host(void* dst, const void* host_src, std::size_t bytes) {
  const CallWatchdog::Scope scope(*watchdog_, "cudaMemcpyAsync to the device");
  CUDA_CHECK(cudaMemcpyAsync(dst, host_src, bytes, cudaMemcpyHostToDevice, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void NcclCommunicator::copy_to_host(void* host_dst, const void* src, std::size_t bytes) {
  const CallWatchdog::Scope scope(*watchdog_, "cudaMemcpyAsync to the host");
  CUDA_CHECK(cudaMemcpyAsync(host_dst, src, bytes, cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void* NcclCommunicator::scratch(std::size_t bytes) {
  if (bytes > scratch_bytes_) {
    // Grows rarely (the first in-place all-to-all of a new size); cudaFree waits for the stream.
    const CallWatchdog::Scope scope(*watchdog_, "cudaStreamSynchronize (growing scratch)");
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    CUDA_CHECK(cudaFree(scratch_));
    scratch_ = nullptr;
    CUDA_CHECK(cudaMalloc(&scratch_, bytes));
    scratch_bytes_ = bytes;
  }
  return scratch_;
}

const void* NcclCommunicator::staged_copy(const void* send, std::size_t bytes) {
  void* staged = scratch(bytes);
  const CallWatchdog::Scope scope(*watchdog_, "cudaMemcpyAsync (in-place staging)");
  CUDA_CHECK(cudaMemcpyAsync(staged, send, bytes, cudaMemcpyDeviceToDevice, stream_));
  return staged;
}

// ---- completion ----

// Recording on a stream whose queue is full of stuck kernels blocks like a launch: watched.
std::shared_ptr<StreamEvent> NcclCommunicator::record() {
  const CallWatchdog::Scope scope(*watchdog_, "cudaEventRecord");
  return std::make_shared<CudaStreamEvent>(stream_, wait_policy(), "NCCL stream event");
}

void NcclCommunicator::wait_all(const std::string& what_for) {
  CudaStreamEvent done(stream_, wait_policy(), what_for);
  done.synchronize();
}

void NcclCommunicator::wait_on(const std::shared_ptr<StreamEvent>& event) {
  auto* cuda_event = static_cast<cudaEvent_t>(event->native_handle());
  if (!cuda_event) throw RuntimeError("NCCL stream asked to wait for an event with no CUDA event");
  const CallWatchdog::Scope scope(*watchdog_, "cudaStreamWaitEvent");
  CUDA_CHECK(cudaStreamWaitEvent(stream_, cuda_event, 0));
}

void NcclCommunicator::barrier() {
  {
    LogWindow window(*this);
    watched("ncclAllReduce (barrier)", [&] {
      return ncclAllReduce(barrier_word_, barrier_word_, 1, ncclFloat32, ncclSum, state_->comm,
                           stream_);
    });
  }
  wait_all("barrier");
}

}  // namespace collreplay
