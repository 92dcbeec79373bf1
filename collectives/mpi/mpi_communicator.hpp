// The MPI backend: host buffers (or device buffers when the MPI library is CUDA-aware and the
// caller asks), nonblocking MPI collectives queued on an MpiRequestQueue, which plays the role of
// a stream. Host all-gather, reduce-scatter, all-reduce and all-to-all are the one-round
// exchanges of collectives/host/host_collectives.hpp.
// Works on any MPI-3 library; tested with OpenMPI 4.1 (ob1 and UCX).
#pragma once
#include <mpi.h>

#include <memory>
#include <string>

#include "collectives/backend.hpp"
#include "collectives/communicator.hpp"
#include "collectives/host/host_collectives.hpp"
#include "collectives/host/mpi_dtypes.hpp"
#include "collectives/mpi/mpi_request_queue.hpp"

namespace collreplay {

class MpiCommunicator final : public Communicator {
 public:
  // Duplicates `parent` (so the benchmark's own MPI traffic never mixes with measured ops).
  // options.mpi_device_buffers asks for GPU buffers: UsageError unless MPI is CUDA-aware and a
  // GPU is visible.
  MpiCommunicator(MPI_Comm parent, const BackendOptions& options);
  ~MpiCommunicator() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  BackendKind backend() const override { return BackendKind::mpi; }
  std::string transport() const override;
  std::vector<std::string> interfaces() const override;
  std::string device_description() const override;
  std::map<std::string, std::string> library_versions() const override;
  bool device_buffers() const override { return device_buffers_; }

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

  std::shared_ptr<StreamEvent> record() override;
  void wait_on(const std::shared_ptr<StreamEvent>& event) override { event->synchronize(); }
  void wait_all(const std::string& what_for) override;
  void barrier() override;

  void set_timeout_seconds(double seconds) override { timeout_seconds_ = seconds; }
  double timeout_seconds() const override { return timeout_seconds_; }
  [[noreturn]] void abort(int exit_code) override;
  void abandon() override {}
  void* native_stream() const override { return nullptr; }

  MPI_Comm mpi_comm() const { return comm_; }

 private:
  struct Adopt {};
  MpiCommunicator(Adopt, MPI_Comm owned, double timeout_seconds, bool device_buffers);
  void all_to_allv_point_to_point(const char* send, PeerCounts send_layout, char* recv,
                                  PeerCounts recv_layout, DType t, std::string description);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  double timeout_seconds_ = 0;
  bool device_buffers_ = false;
  std::shared_ptr<MpiRequestQueue> queue_;
  std::unique_ptr<MpiTypeCache> types_;
  std::unique_ptr<HostCollectives> host_collectives_;  // host buffers only
  mutable std::string transport_;                      // detected once, after the first collective
};

}  // namespace collreplay
