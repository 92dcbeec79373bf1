// The Communicator: the one interface every backend (NCCL on GPUs, MPI on host or CUDA-aware
// buffers) implements and every executable uses. Operations are asynchronous: they are issued on
// the communicator's stream (GPU) or as nonblocking requests (host) and return at once; record()
// places a StreamEvent after everything issued so far, which the caller waits on, times against
// another event, or (GPU) makes a compute stream wait for.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "collectives/reduce_op.hpp"
#include "common/dtype.hpp"
#include "common/errors.hpp"

namespace collreplay {

enum class BackendKind { nccl, mpi };

// A point in the communicator's stream of work.
class StreamEvent {
 public:
  virtual ~StreamEvent() = default;
  // True once all work issued before the event has finished (host: also progresses MPI).
  virtual bool query() = 0;
  // Blocks until done; throws TimeoutError after the communicator's timeout.
  virtual void synchronize() = 0;
  // Milliseconds from `earlier` to this event; both must be done.
  virtual double elapsed_ms_since(const StreamEvent& earlier) const = 0;
  // The cudaEvent_t behind a GPU event, nullptr on host.
  virtual void* native_handle() const = 0;
};

// Work recorded once and replayed with one launch (a CUDA graph on GPU), so that many small ops
// pay one launch between them.
class CapturedWork {
 public:
  virtual ~CapturedWork() = default;
  // Queues the recorded work on the communicator's stream; returns at once.
  virtual void launch() = 0;
};

// Per-peer element counts and displacements for all_to_allv, in elements of the op's dtype.
struct PeerCounts {
  std::span<const std::size_t> counts;
  std::span<const std::size_t> displs;
};

// One side of a point-to-point transfer of `count` elements with rank `peer` of the communicator.
struct P2pCall {
  enum class Direction { send, recv };
  Direction direction = Direction::send;
  void* buffer = nullptr;  // read for a send, written for a recv
  std::size_t count = 0;
  DType dtype = DType::bf16;
  int peer = 0;

  static P2pCall send(const void* buffer, std::size_t count, DType t, int peer) {
    return {Direction::send, const_cast<void*>(buffer), count, t, peer};
  }
  static P2pCall recv(void* buffer, std::size_t count, DType t, int peer) {
    return {Direction::recv, buffer, count, t, peer};
  }
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual BackendKind backend() const = 0;
  // The path the backend actually uses between ranks ("nvlink", "socket", "shm", "ib", "self"...),
  // read from the library after the first collective, so callers can verify what was asked for.
  virtual std::string transport() const = 0;
  // The network interfaces (or HCA ports) the transport uses, as far as the library says:
  // {"eth0"}, {"mlx5_0:1"}; empty when nothing crosses a network (NVLink, shared memory).
  virtual std::vector<std::string> interfaces() const { return {}; }
  // The algorithm the library reported for each collective it ran in this process
  // ({"AllGather": "RING"}); empty where the library does not say (MPI).
  virtual std::map<std::string, std::string> algorithms() const { return {}; }
  // This rank's device for headers and metadata ("NVIDIA H200 (GPU 0, bus 0000:18:00.0)", "host").
  virtual std::string device_description() const = 0;
  // Library versions for run metadata: {"nccl": "2.28.3", "cuda_runtime": "13.0", "mpi": ...}.
  virtual std::map<std::string, std::string> library_versions() const = 0;
  // True when buffers from allocate() live in GPU memory.
  virtual bool device_buffers() const = 0;

  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* buffer) = 0;
  virtual void copy_from_host(void* dst, const void* host_src, std::size_t bytes) = 0;
  virtual void copy_to_host(void* host_dst, const void* src, std::size_t bytes) = 0;

  // Ranks with the same color form a new communicator, ordered by key (MPI_Comm_split rules).
  virtual std::unique_ptr<Communicator> split(int color, int key) = 0;

  // Counts are per rank, in elements, as in NCCL: all_gather sends `count` and receives
  // count*size; reduce_scatter sends count*size and receives `count`; all_to_all sends and
  // receives `count` to and from every peer; all_reduce reduces `count` elements. In-place calls
  // pass send == the rank's slice of recv (all_gather) or send == recv (others), as NCCL does.
  // The reducing ops take NCCL's reduction (collectives/reduce_op.hpp); every backend declares
  // the same default, sum.
  virtual void all_gather(const void* send, void* recv, std::size_t count, DType t) = 0;
  virtual void reduce_scatter(const void* send, void* recv, std::size_t count, DType t,
                              ReduceOp op = ReduceOp::sum) = 0;
  virtual void all_to_all(const void* send, void* recv, std::size_t count, DType t) = 0;
  virtual void all_to_allv(const void* send, PeerCounts send_layout, void* recv,
                           PeerCounts recv_layout, DType t) = 0;
  virtual void all_reduce(const void* send, void* recv, std::size_t count, DType t,
                          ReduceOp op = ReduceOp::sum) = 0;
  // The root's `count` elements of `send` land in every rank's `recv` (send is read on the root
  // only; in-place: send == recv).
  virtual void broadcast(const void* send, void* recv, std::size_t count, DType t, int root) = 0;
  // Issues the calls as one group that progresses together (ncclGroupStart/End; MPI: nonblocking
  // sends and receives completed together), so two ranks that both send first cannot deadlock,
  // as torch's batch_isend_irecv does. A send completes with its peer's matching recv.
  virtual void p2p_group(std::span<const P2pCall> calls) = 0;
  void send(const void* buffer, std::size_t count, DType t, int peer) {
    const P2pCall call = P2pCall::send(buffer, count, t, peer);
    p2p_group({&call, 1});
  }
  void recv(void* buffer, std::size_t count, DType t, int peer) {
    const P2pCall call = P2pCall::recv(buffer, count, t, peer);
    p2p_group({&call, 1});
  }

  // Issues the collectives `issue` makes as one group that the library launches together
  // (ncclGroupStart/End: nccl-tests' -m aggregation). The host backend waits for each op before
  // the next can reuse its buffers, so it has no such group: it issues them one by one.
  virtual void grouped(const std::function<void()>& issue) { issue(); }

  // Records the operations `issue` makes on this communicator instead of running them, for
  // CapturedWork::launch. GPU only: the host backend throws UsageError. The ops must not need
  // new memory while recorded (issue each once before capturing it).
  virtual std::unique_ptr<CapturedWork> capture(const std::function<void()>& issue) {
    (void)issue;
    throw UsageError("CUDA graphs (-G) need the nccl backend");
  }

  virtual std::shared_ptr<StreamEvent> record() = 0;
  // Operations issued after this call start only once `event` (of another stream: the compute
  // engine's or another communicator's) is done. GPU: cudaStreamWaitEvent, returns at once;
  // host: blocks until the event is done.
  virtual void wait_on(const std::shared_ptr<StreamEvent>& event) = 0;
  // Blocks until every issued operation has finished; throws TimeoutError naming `what_for`
  // after timeout_seconds() without completion.
  virtual void wait_all(const std::string& what_for) = 0;
  // Blocking barrier across the communicator's ranks (timed out like wait_all).
  virtual void barrier() = 0;

  // 0 disables the watchdog.
  virtual void set_timeout_seconds(double seconds) = 0;
  virtual double timeout_seconds() const = 0;
  // Tear down after a timeout so that no rank hangs: ncclCommAbort / MPI_Abort.
  [[noreturn]] virtual void abort(int exit_code) = 0;
  // Tears down the library's communicator without waiting for work in flight (ncclCommAbort),
  // so that freeing buffers and destroying streams afterwards cannot block on a collective that
  // will never finish; the process is expected to exit soon. Host MPI: nothing to do (MPI_Abort
  // at exit ends the job).
  virtual void abandon() = 0;

  // The CUDA stream operations are issued on (GPU), nullptr on host.
  virtual void* native_stream() const = 0;
};

}  // namespace collreplay
