// The NCCL communicator's life: placement on a GPU, init and split under the call watchdog,
// teardown (destroy, or abort when work may never finish).
//
// Why the NCCL communicator is a blocking one (as PyTorch's and nccl-tests' are). On a
// nonblocking communicator NCCL runs every group, and so every collective (an implicit group of
// one), through a thread it creates for that group (ncclGroupEndInternal: pthread_create, the
// caller gets ncclInProgress and polls). Measured at 2 ranks over NVLink that cost 31-83 us per
// op where nccl-tests takes 5-12 us (bench/RESULTS.md); at one rank NCCL copies without a group,
// so the cost did not show there. A blocking communicator launches on the calling thread.
//
// What a blocking communicator takes away, and how each guarantee is kept:
//  - init, split and finalize no longer return to be polled: they wait for every rank inside
//    NCCL. A launch can block too: the first collective with a peer connects to it, and once a
//    stream's queue is full of kernels waiting for a stopped peer, the next launch (or event
//    record, or copy) waits for room. The calling thread cannot time itself out there, and
//    ncclCommAbort from another thread is safe only for nonblocking communicators (it would
//    free the communicator under the call). So every such call runs inside a
//    CallWatchdog::Scope: the watchdog's thread ends the process, naming the call, its size and
//    the rank, with exit code 4 once the call has lasted --timeout, or with 1 when NCCL reports
//    an asynchronous error while it lasts (ncclCommGetAsyncError, polled from that thread); the
//    launcher then ends the other ranks.
//  - Waiting for completion never happens inside NCCL: events are polled on the calling thread
//    under the timeout, checking ncclCommGetAsyncError (wait_policy), and a timeout there throws
//    TimeoutError naming the op, as before. The unwinding that follows aborts the communicator
//    (abandon, the destructor) from the calling thread, which is then not inside NCCL; the abort
//    gets kAbortWaitS and the teardown kTeardownS, as before.
//  - The watchdog's thread is stopped before the communicator is destroyed or aborted, so its
//    health check never reads a freed communicator.
// NCCL_COMM_BLOCKING=0 (NCCL's own variable) still makes every communicator nonblocking; settle
// then polls as before, which is how the two launch paths can be compared.
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <exception>
#include <future>
#include <memory>
#include <set>
#include <thread>

#include "collectives/device/cuda_check.hpp"
#include "collectives/device/cuda_event.hpp"
#include "collectives/nccl/nccl_backend.hpp"
#include "collectives/nccl/nccl_check.hpp"
#include "collectives/nccl/nccl_internal.hpp"
#include "collectives/transport/emulated_nodes.hpp"
#include "collectives/transport/transport_select.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

constexpr int kMessageBytes = 512;
// ncclCommAbort asks the kernels in flight to quit, but it can wait for a launch that is blocked
// behind thousands of queued kernels whose peer is gone. The process ends right after an abort,
// so each abort gets this long, then the exit goes on without it.
constexpr double kAbortWaitS = 2;
// After a timeout the unwinding that follows (event and buffer destructors, the aborts) makes CUDA
// calls, and any of them can block on a driver lock held by a launch that waits behind those
// kernels (seen with 64 MiB all-gathers queued by the thousand against a stopped peer). The
// process has this long to reach its exit; then this watchdog ends it itself, exit code 4, and
// the launcher ends the other ranks.
constexpr double kTeardownS = 4;

void abort_within(ncclComm_t comm, double seconds) {
  auto finished = std::make_shared<std::promise<void>>();
  std::future<void> done = finished->get_future();
  std::thread([comm, finished] {
    ncclCommAbort(comm);
    finished->set_value();
  }).detach();
  done.wait_for(std::chrono::duration<double>(seconds));
}

void exit_if_teardown_stalls(const std::string& cause) {
  std::thread([cause] {
    std::this_thread::sleep_for(std::chrono::duration<double>(kTeardownS));
    std::fprintf(stderr, "error: %s; the teardown after it did not end within %.0f s: exiting\n",
                 cause.c_str(), kTeardownS);
    std::fflush(stderr);
    std::_Exit(kExitTimeout);
  }).detach();
}

// "" while NCCL reports no asynchronous error on the communicator, else the error. Safe from the
// call watchdog's thread: the communicator is only aborted or destroyed once that has stopped.
std::string async_error_of(const NcclCommState& state) {
  if (!state.comm || state.broken) return {};
  ncclResult_t async = ncclSuccess;
  if (ncclCommGetAsyncError(state.comm, &async) != ncclSuccess) return {};
  if (async == ncclSuccess || async == ncclInProgress) return {};
  const char* detail = ncclGetLastError(state.comm);
  return std::string("NCCL asynchronous error: ") + ncclGetErrorString(async) +
         (detail && *detail ? std::string(" (") + detail + ")" : std::string());
}

// NCCL's idea of a host: NCCL_HOSTID when set (emulated nodes), else the host name.
std::string nccl_host_identity() {
  const char* id = std::getenv("NCCL_HOSTID");
  return id && *id ? id : host_name();
}

// Why this rank cannot have a GPU of its own, or "". Collective over the node's ranks: every
// rank publishes the bus id of the GPU it would take, so launchers that give each rank a
// different CUDA_VISIBLE_DEVICES (one GPU visible per rank) pass, and oversubscription fails.
// Ranks of different NCCL hosts (NCCL_HOSTID, --emulate-nodes) may share a GPU: NCCL treats
// them as nodes apart, as the reference's --same-gpu traces do.
std::string device_problem(MPI_Comm node, int device, int gpus) {
  constexpr int kKeyBytes = kNcclBusIdBytes + kNcclHostNameBytes;
  int local_rank = 0, local_size = 1;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_size(node, &local_size);
  std::vector<char> mine(kKeyBytes, '\0');
  const std::string bus = bus_id_of(device);
  std::strncpy(mine.data(), bus.c_str(), kNcclBusIdBytes - 1);
  std::strncpy(mine.data() + kNcclBusIdBytes, nccl_host_identity().c_str(),
               kNcclHostNameBytes - 1);
  std::vector<char> all(static_cast<std::size_t>(kKeyBytes) * local_size);
  MPI_Allgather(mine.data(), kKeyBytes, MPI_CHAR, all.data(), kKeyBytes, MPI_CHAR, node);
  std::set<std::string> distinct;
  bool any_missing = false;
  for (int r = 0; r < local_size; ++r) {
    const char* key = all.data() + static_cast<std::size_t>(r) * kKeyBytes;
    const std::string id(key);
    any_missing |= id.empty();
    distinct.insert(id + "|" + std::string(key + kNcclBusIdBytes));
  }
  if (!any_missing && static_cast<int>(distinct.size()) == local_size) return {};
  return std::to_string(local_size) + " ranks on host " + host_name() + " but only " +
         std::to_string(gpus) + " GPUs visible";
}

// Bad input must read the same on every rank (guarded_main lets rank 0 speak): the lowest rank
// with a problem broadcasts its message and every rank throws it.
void throw_if_any_rank_has(MPI_Comm world, const std::string& problem) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  int mine = problem.empty() ? INT_MAX : rank, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, world);
  if (first == INT_MAX) return;
  std::vector<char> message(kMessageBytes, '\0');
  if (rank == first) std::strncpy(message.data(), problem.c_str(), kMessageBytes - 1);
  MPI_Bcast(message.data(), kMessageBytes, MPI_CHAR, first, world);
  throw UsageError(message.data());
}

int count_hosts(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<char> mine(kNcclHostNameBytes, '\0');
  std::strncpy(mine.data(), nccl_host_identity().c_str(), kNcclHostNameBytes - 1);
  std::vector<char> all(static_cast<std::size_t>(kNcclHostNameBytes) * size);
  MPI_Allgather(mine.data(), kNcclHostNameBytes, MPI_CHAR, all.data(), kNcclHostNameBytes, MPI_CHAR,
                comm);
  std::set<std::string> hosts;
  for (int r = 0; r < size; ++r)
    hosts.insert(all.data() + static_cast<std::size_t>(r) * kNcclHostNameBytes);
  return static_cast<int>(hosts.size());
}

// Blocking communicators (see the top of this file).
ncclConfig_t blocking_config() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  return config;
}

}  // namespace

std::unique_ptr<NcclCommunicator> NcclCommunicator::create(MPI_Comm world,
                                                           const BackendOptions& options) {
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(world, &world_rank);
  MPI_Comm_size(world, &world_size);
  // Everything NCCL reads from its environment is settled before its first call: the emulated
  // host id, the transport's settings (which depend on the node count) and the log.
  if (options.emulate_nodes > 0) {
    const EmulatedNode node = emulated_node_of(world_rank, world_size, options.emulate_nodes);
    setenv("NCCL_HOSTID", emulated_host_id(host_name(), node.node).c_str(), 1);
  }
  const int hosts = count_hosts(world);
  apply_settings(nccl_transport_settings(options.transport, hosts == 1));
  NcclLogTap::for_process(hosts > 1);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &node);
  int local_rank = 0;
  MPI_Comm_rank(node, &local_rank);
  const int gpus = cuda_visible_gpu_count();
  const int device = gpus > 0 ? local_rank % gpus : -1;
  const std::string problem = device_problem(node, device, gpus);
  MPI_Comm_free(&node);
  throw_if_any_rank_has(world, problem);

  MPI_Comm own = MPI_COMM_NULL;
  MPI_Comm_dup(world, &own);
  std::unique_ptr<NcclCommunicator> comm(
      new NcclCommunicator(own, device, options.timeout_seconds));
  comm->register_buffers_ = options.register_buffers;
  ncclUniqueId id{};
  if (comm->rank_ == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, own);
  comm->init_nccl(id);
  return comm;
}

NcclCommunicator::NcclCommunicator(MPI_Comm mpi_comm, int device, double timeout_seconds)
    : mpi_(mpi_comm),
      device_(device),
      host_(host_name()),
      timeout_seconds_(timeout_seconds),
      state_(std::make_shared<NcclCommState>()) {
  MPI_Comm_rank(mpi_, &rank_);
  MPI_Comm_size(mpi_, &size_);
  hosts_ = count_hosts(mpi_);
  watchdog_ = std::make_unique<CallWatchdog>(timeout_seconds_, where(),
                                             [state = state_] { return async_error_of(*state); });
  CUDA_CHECK(cudaSetDevice(device_));
  // Non-blocking: the legacy default stream (used by stray cudaMemcpy calls) must not
  // serialise with the collectives.
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMalloc(&barrier_word_, sizeof(float)));
  CUDA_CHECK(cudaMemset(barrier_word_, 0, sizeof(float)));
}

void NcclCommunicator::init_nccl(const ncclUniqueId& id) {
  LogWindow window(*this);
  ncclConfig_t config = blocking_config();
  ncclComm_t comm = nullptr;
  ncclResult_t rc = ncclSuccess;
  {
    const CallWatchdog::Scope scope(*watchdog_, "ncclCommInitRankConfig");
    rc = ncclCommInitRankConfig(&comm, size_, id, rank_, &config);
  }
  adopt_nccl(comm);  // first, so that a failure below aborts it
  settle(rc, "ncclCommInitRankConfig");
}

void NcclCommunicator::adopt_nccl(ncclComm_t comm) { state_->comm = comm; }

void NcclCommunicator::set_timeout_seconds(double seconds) {
  timeout_seconds_ = seconds;
  watchdog_->set_timeout_seconds(seconds);
}

// A nonblocking communicator (NCCL_COMM_BLOCKING=0) may answer any call with ncclInProgress:
// poll its state until the call has finished, failed, or outlived the timeout.
void NcclCommunicator::settle(ncclResult_t issued, const LibraryCall& call) const {
  if (issued != ncclInProgress) {
    if (issued != ncclSuccess) state_->broken = true;
    nccl_check(issued, call.name, __FILE__, __LINE__);
    return;
  }
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  for (;;) {
    ncclResult_t state = ncclSuccess;
    if (state_->comm)
      nccl_check(ncclCommGetAsyncError(state_->comm, &state), "ncclCommGetAsyncError", __FILE__,
                 __LINE__);
    if (state == ncclSuccess) return;
    if (state != ncclInProgress) {
      state_->broken = true;
      nccl_check(state, call.name, __FILE__, __LINE__);
    }
    const double waited_s = std::chrono::duration<double>(Clock::now() - start).count();
    if (timeout_seconds_ > 0 && waited_s > timeout_seconds_) {
      state_->broken = true;
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.1f", timeout_seconds_);
      const std::string message =
          call.describe() + " did not finish within " + seconds + " s (" + where() + ")";
      exit_if_teardown_stalls(message);
      throw TimeoutError(message);
    }
    std::this_thread::yield();
  }
}

NcclCommunicator::~NcclCommunicator() {
  if (state_->comm && !state_->broken) {  // buffers still registered when unwinding
    const CallWatchdog::Scope scope(*watchdog_, "ncclCommDeregister");
    for (const auto& [buffer, handle] : registrations_) ncclCommDeregister(state_->comm, handle);
  }
  if (state_->comm) {
    // Destroy waits for outstanding work; after a timeout or while unwinding a peer may never
    // arrive, so abort instead of hanging.
    bool finalized = false;
    if (!state_->broken && std::uncaught_exceptions() == 0) {
      // Finalize waits inside NCCL for the communicator's work and its peers: watched.
      try {
        watched("ncclCommFinalize", [&] { return ncclCommFinalize(state_->comm); });
        finalized = true;
      } catch (const std::exception&) {
      }
    }
    watchdog_->stop();  // its health check reads the communicator destroyed next
    if (finalized)
      ncclCommDestroy(state_->comm);
    else
      abort_within(state_->comm, kAbortWaitS);
    state_->comm = nullptr;
  }
  // After a timeout the stream may still hold queued kernels that wait for a peer that is gone:
  // freeing memory or destroying the stream would wait for them. The process ends soon after a
  // broken communicator; its exit frees both.
  if (state_->broken) return;
  for (const auto& registered : registrations_) ncclMemFree(registered.first);
  cudaFree(scratch_);
  cudaFree(barrier_word_);
  if (stream_) cudaStreamDestroy(stream_);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && mpi_ != MPI_COMM_NULL) MPI_Comm_free(&mpi_);
}

std::string NcclCommunicator::where() const {
  return "NCCL rank " + std::to_string(rank_) + " of " + std::to_string(size_) + " on host " +
         host_ + ", GPU " + std::to_string(device_);
}

EventWaitPolicy NcclCommunicator::wait_policy() const {
  EventWaitPolicy policy;
  policy.timeout_seconds = timeout_seconds_;
  policy.where = where();
  std::shared_ptr<NcclCommState> state = state_;
  policy.check_health = [state] {
    std::string problem = async_error_of(*state);
    if (problem.empty()) return;
    state->broken = true;
    throw RuntimeError(std::move(problem));
  };
  policy.on_timeout = [state](const std::string& message) {
    state->broken = true;
    exit_if_teardown_stalls(message);
  };
  return policy;
}

std::unique_ptr<Communicator> NcclCommunicator::split(int color, int key) {
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_Comm_split(mpi_, color < 0 ? MPI_UNDEFINED : color, key, &sub);
  std::unique_ptr<NcclCommunicator> child;
  if (sub != MPI_COMM_NULL) child.reset(new NcclCommunicator(sub, device_, timeout_seconds_));
  ncclConfig_t config = blocking_config();
  // Blocking, the split has written the new communicator when it returns. Nonblocking
  // (NCCL_COMM_BLOCKING=0), it tracks its work in the parent's state and writes the new
  // communicator through this pointer at its very end (NCCL 2.28 was seen reporting the parent
  // ready first): the pointer lives as long as the child, and the wait covers both.
  ncclComm_t no_comm = nullptr;
  ncclComm_t* target = child ? &child->state_->comm : &no_comm;
  LogWindow window(child ? *child : *this);
  watched("ncclCommSplit", [&] {
    return ncclCommSplit(state_->comm, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, target,
                         &config);
  });
  if (!child) return nullptr;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  while (!__atomic_load_n(target, __ATOMIC_ACQUIRE)) {
    if (timeout_seconds_ > 0 &&
        std::chrono::duration<double>(Clock::now() - start).count() > timeout_seconds_)
      throw TimeoutError("ncclCommSplit handed back no communicator for a group of " +
                         std::to_string(child->size_) + " ranks within " +
                         std::to_string(static_cast<int>(timeout_seconds_)) + " s (" + where() +
                         ")");
    std::this_thread::yield();
  }
  child->settle(ncclInProgress, "ncclCommSplit (the new communicator)");
  return child;
}

void NcclCommunicator::abandon() {
  if (!state_->comm) return;
  exit_if_teardown_stalls("the run ended on an error (" + where() + ")");
  state_->broken = true;
  watchdog_->stop();  // its health check reads the communicator aborted next
  abort_within(state_->comm, kAbortWaitS);
  state_->comm = nullptr;
}

void NcclCommunicator::abort(int exit_code) {
  abandon();
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

}  // namespace collreplay
