// The NCCL backend: one rank per GPU (chosen by local rank), device buffers, its own
// non-blocking CUDA stream, sums only. The NCCL communicator is a blocking one, as PyTorch's,
// watched by a CallWatchdog (nccl_setup.cpp says why). Users keep NCCL_NVLS_ENABLE=0 on the test machines (NVLink
// SHARP needs multicast objects those machines do not lend). The only NCCL variables this backend
// sets are the ones its flags ask for: the transport's (transport_select.hpp), NCCL_HOSTID for
// --emulate-nodes (emulated_nodes.hpp) and the logging ones (nccl_log.hpp).
#pragma once
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collectives/backend.hpp"
#include "collectives/call_watchdog.hpp"
#include "collectives/communicator.hpp"
#include "collectives/transport/nccl_log.hpp"

namespace collreplay {

// Shared with the events a communicator hands out, so that they outlive it safely.
struct NcclCommState {
  ncclComm_t comm = nullptr;
  // Timed out or failed: tear down with ncclCommAbort, never wait. Read by the call watchdog's
  // thread too.
  std::atomic<bool> broken = false;
};

// How transport() decided.
struct TransportEvidence {
  std::string name;       // "nvlink", "socket", ... (no "(inferred)" suffix)
  bool observed = false;  // true: from NCCL's channel lines; false: inferred
  std::string detail;     // the kinds seen, or why the log could not be read
};

class NcclCommunicator final : public Communicator {
 public:
  // Collective over `world`; see make_nccl_communicator.
  static std::unique_ptr<NcclCommunicator> create(MPI_Comm world, const BackendOptions& options);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  BackendKind backend() const override { return BackendKind::nccl; }
  // The observed name ("nvlink", "pcie", "shm", "socket", "ib", "self", "nvlink+shm"), or the
  // inferred one followed by " (inferred)" when NCCL's log could not be read.
  std::string transport() const override;
  TransportEvidence transport_evidence() const;
  // From the whole process's NCCL log (every communicator of this process).
  std::vector<std::string> interfaces() const override;
  std::map<std::string, std::string> algorithms() const override;
  std::string device_description() const override;
  std::map<std::string, std::string> library_versions() const override;
  bool device_buffers() const override { return true; }

  void* allocate(std::size_t bytes) override;
  void release(void* buffer) override;
  void copy_from_host(void* dst, const void* host_src, std::size_t bytes) override;
  void copy_to_host(void* host_dst, const void* src, std::size_t bytes) override;

  std::unique_ptr<Communicator> split(int color, int key) override;

  void all_gather(const void* send, void* recv, std::size_t count, DType t) override;
  void reduce_scatter(const void* send, void* recv, std::size_t count, DType t,
                      ReduceOp op = ReduceOp::sum) override;
  void all_to_all(const void* send, void* recv, std::size_t count, DType t) override;
  void all_to_allv(const void* send, PeerCounts send_layout, void* recv, PeerCounts recv_layout,
                   DType t) override;
  void all_reduce(const void* send, void* recv, std::size_t count, DType t,
                  ReduceOp op = ReduceOp::sum) override;
  void broadcast(const void* send, void* recv, std::size_t count, DType t, int root) override;
  void p2p_group(std::span<const P2pCall> calls) override;

  void grouped(const std::function<void()>& issue) override;
  std::unique_ptr<CapturedWork> capture(const std::function<void()>& issue) override;
  std::shared_ptr<StreamEvent> record() override;
  void wait_on(const std::shared_ptr<StreamEvent>& event) override;
  void wait_all(const std::string& what_for) override;
  void barrier() override;

  void set_timeout_seconds(double seconds) override;
  double timeout_seconds() const override { return timeout_seconds_; }
  [[noreturn]] void abort(int exit_code) override;
  void abandon() override;

  void* native_stream() const override { return stream_; }
  int cuda_device() const { return device_; }

 private:
  NcclCommunicator(MPI_Comm mpi_comm, int device, double timeout_seconds);
  void init_nccl(const ncclUniqueId& id);
  void adopt_nccl(ncclComm_t comm);
  struct EventWaitPolicy wait_policy() const;
  // Makes one call into NCCL under the call watchdog, then settles its result (see settle).
  template <typename Launch>
  void watched(const LibraryCall& call, Launch&& launch);
  // Checks a call's result; ncclInProgress (a nonblocking communicator: NCCL_COMM_BLOCKING=0)
  // is waited out by polling. Throws RuntimeError on failure and TimeoutError after
  // timeout_seconds_.
  void settle(ncclResult_t issued, const LibraryCall& call) const;
  // Brackets a call into NCCL so that what NCCL logs during it is attributed to this
  // communicator (several communicators share the process's one log).
  class LogWindow;
  // Consecutive calls that logged nothing; from LogWindow::kQuietCallsToStop on, calls are no
  // longer bracketed (each bracket costs two fstat calls, which a timed loop of small ops feels).
  int quiet_log_calls_ = 0;
  void* scratch(std::size_t bytes);  // staging for in-place all_to_all(v)
  // In-place all_to_all(v): the send side copied to scratch first (NCCL has no in-place form).
  const void* staged_copy(const void* send, std::size_t bytes);
  std::string where() const;
  std::string bus_id() const;  // of this rank's GPU ("0000:18:00.0"), "" when unknown
  std::string inferred_transport() const;

  MPI_Comm mpi_ = MPI_COMM_NULL;  // duplicate of the parent's group, owned
  int device_ = 0;
  int rank_ = 0, size_ = 1, hosts_ = 1;
  std::string host_;
  double timeout_seconds_ = 0;
  std::shared_ptr<NcclCommState> state_;
  // Watches every call that can block (NCCL's, and CUDA's on the stream); stopped before the
  // NCCL communicator is destroyed or aborted.
  std::unique_ptr<CallWatchdog> watchdog_;
  cudaStream_t stream_ = nullptr;
  void* barrier_word_ = nullptr;  // one float, reduced by barrier()
  void* scratch_ = nullptr;
  // -R: buffers from allocate() come from ncclMemAlloc and are registered with the communicator
  // (ncclCommRegister), so NCCL can skip its own staging copies where the transport allows.
  bool register_buffers_ = false;
  std::map<void*, void*> registrations_;  // buffer -> NCCL registration handle
  std::size_t scratch_bytes_ = 0;
  std::vector<NcclLogSpan> log_spans_;
};

}  // namespace collreplay
