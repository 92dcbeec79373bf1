#include "collectives/nccl_communicator_cuda.hpp"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <set>

#include "collectives/cuda_check.hpp"
#include "collectives/cuda_event_cuda.hpp"
#include "collectives/nccl_backend.hpp"
#include "collectives/nccl_check.hpp"
#include "collectives/nvlink.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

constexpr int kHostNameBytes = 256;
constexpr int kMessageBytes = 512;
constexpr int kBusIdBytes = 32;

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::bf16: return ncclBfloat16;
    case DType::f16: return ncclFloat16;
    case DType::f32: return ncclFloat32;
    case DType::fp8: return ncclUint8;  // moved only (all-to-all); reductions are refused earlier
  }
  throw UsageError("unsupported dtype for NCCL");
}

std::string host_name() {
  char host[kHostNameBytes] = "";
  gethostname(host, sizeof host - 1);
  return host;
}

std::string bus_id_of(int device) {
  char bus[kBusIdBytes] = "";
  if (device < 0 || cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess) {
    cudaGetLastError();
    return {};
  }
  return bus;
}

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

// Why this rank cannot have a GPU of its own, or "". Collective over the node's ranks: every
// rank publishes the bus id of the GPU it would take, so launchers that give each rank a
// different CUDA_VISIBLE_DEVICES (one GPU visible per rank) pass, and oversubscription fails.
std::string device_problem(MPI_Comm node, int device, int gpus) {
  int local_rank = 0, local_size = 1;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_size(node, &local_size);
  std::vector<char> mine(kBusIdBytes, '\0');
  const std::string bus = bus_id_of(device);
  std::strncpy(mine.data(), bus.c_str(), kBusIdBytes - 1);
  std::vector<char> all(static_cast<std::size_t>(kBusIdBytes) * local_size);
  MPI_Allgather(mine.data(), kBusIdBytes, MPI_CHAR, all.data(), kBusIdBytes, MPI_CHAR, node);
  std::set<std::string> distinct;
  bool any_missing = false;
  for (int r = 0; r < local_size; ++r) {
    const std::string id(all.data() + static_cast<std::size_t>(r) * kBusIdBytes);
    any_missing |= id.empty();
    distinct.insert(id);
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
  std::vector<char> mine(kHostNameBytes, '\0');
  std::strncpy(mine.data(), host_name().c_str(), kHostNameBytes - 1);
  std::vector<char> all(static_cast<std::size_t>(kHostNameBytes) * size);
  MPI_Allgather(mine.data(), kHostNameBytes, MPI_CHAR, all.data(), kHostNameBytes, MPI_CHAR, comm);
  std::set<std::string> hosts;
  for (int r = 0; r < size; ++r) hosts.insert(all.data() + static_cast<std::size_t>(r) * kHostNameBytes);
  return static_cast<int>(hosts.size());
}

const char* offset(const void* base, std::size_t elements, DType t) {
  return static_cast<const char*>(base) + elements * dtype_size_bytes(t);
}
char* offset(void* base, std::size_t elements, DType t) {
  return static_cast<char*>(base) + elements * dtype_size_bytes(t);
}

}  // namespace

// Attributes what NCCL logs during one call to this communicator (connections are made lazily,
// inside the call that first needs them, on the calling thread).
class NcclCommunicator::LogWindow {
 public:
  explicit LogWindow(NcclCommunicator& owner)
      : owner_(owner), begin_(NcclLogTap::for_process().size_bytes()) {}
  ~LogWindow() {
    const std::uint64_t end = NcclLogTap::for_process().size_bytes();
    if (end > begin_) owner_.log_spans_.push_back({begin_, end});
  }
  LogWindow(const LogWindow&) = delete;
  LogWindow& operator=(const LogWindow&) = delete;

 private:
  NcclCommunicator& owner_;
  std::uint64_t begin_;
};

std::unique_ptr<NcclCommunicator> NcclCommunicator::create(MPI_Comm world,
                                                           const BackendOptions& options) {
  NcclLogTap::for_process();  // NCCL reads its logging settings at its first call: set them now
  int world_rank = 0;
  MPI_Comm_rank(world, &world_rank);
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
  CUDA_CHECK(cudaSetDevice(device_));
  // Non-blocking: the legacy default stream (used by stray cudaMemcpy calls) must not
  // serialise with the collectives.
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMalloc(&barrier_word_, sizeof(float)));
  CUDA_CHECK(cudaMemset(barrier_word_, 0, sizeof(float)));
}

void NcclCommunicator::init_nccl(const ncclUniqueId& id) {
  LogWindow window(*this);
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommInitRank(&comm, size_, id, rank_));
  adopt_nccl(comm);
}

void NcclCommunicator::adopt_nccl(ncclComm_t comm) { state_->comm = comm; }

NcclCommunicator::~NcclCommunicator() {
  if (state_->comm) {
    // Destroy waits for outstanding work; after a timeout or while unwinding a peer may never
    // arrive, so abort instead of hanging.
    if (state_->broken || std::uncaught_exceptions() > 0)
      ncclCommAbort(state_->comm);
    else
      ncclCommDestroy(state_->comm);
    state_->comm = nullptr;
  }
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
    if (!state->comm) return;
    ncclResult_t async = ncclSuccess;
    if (ncclCommGetAsyncError(state->comm, &async) != ncclSuccess) return;
    if (async == ncclSuccess || async == ncclInProgress) return;
    state->broken = true;
    const char* detail = ncclGetLastError(state->comm);
    throw RuntimeError(std::string("NCCL asynchronous error: ") + ncclGetErrorString(async) +
                       (detail && *detail ? std::string(" (") + detail + ")" : std::string()));
  };
  policy.on_timeout = [state] { state->broken = true; };
  return policy;
}

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
    versions["cuda_runtime"] = std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
  if (cudaDriverGetVersion(&driver) == cudaSuccess)
    versions["cuda_driver"] = std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int length = 0;
  if (MPI_Get_library_version(mpi, &length) == MPI_SUCCESS) {
    std::string text(mpi, static_cast<std::size_t>(length));
    versions["mpi"] = text.substr(0, text.find_first_of(",\n"));
  }
  return versions;
}

// ---- transport ----

TransportEvidence NcclCommunicator::transport_evidence() const {
  if (size_ == 1) return {"self", true, "one rank: no connections"};
  NcclLogTap& tap = NcclLogTap::for_process();
  std::string why;
  if (tap.readable()) {
    std::vector<std::string> kinds = nccl_log_path_kinds(tap.read(log_spans_));
    std::string scope = "this communicator's calls";
    if (kinds.empty()) {
      // Lines written outside our calls (a proxy thread, an NCCL that connects asynchronously):
      // the whole process log still shows the paths, though it may mix communicators.
      kinds = nccl_log_path_kinds(tap.read({{0, tap.size_bytes()}}));
      scope = "the whole process log";
    }
    if (!kinds.empty()) {
      const int links = active_nvlink_count(bus_id_of(device_));
      const std::string p2p = links > 0 ? "nvlink" : links == 0 ? "pcie" : "p2p";
      std::string seen;
      for (const std::string& k : kinds) seen += (seen.empty() ? "" : ",") + k;
      return {nccl_transport_name(kinds, p2p), true, "NCCL channel lines in " + scope + ": " + seen};
    }
    why = "NCCL has logged no channel connection for this communicator yet (it connects on first use)";
  } else {
    why = tap.why_unreadable();
  }
  return {inferred_transport(), false, why};
}

std::string NcclCommunicator::transport() const {
  const TransportEvidence evidence = transport_evidence();
  return evidence.observed ? evidence.name : evidence.name + " (inferred)";
}

// What NCCL would pick by its documented rules, from the environment and the hardware.
std::string NcclCommunicator::inferred_transport() const {
  const bool local_paths_off = env_is("NCCL_P2P_DISABLE", "1") && env_is("NCCL_SHM_DISABLE", "1");
  if (hosts_ > 1 || local_paths_off) {
    if (const char* net = std::getenv("NCCL_NET"); net && *net) {
      const std::string name = net;
      if (name.rfind("IB", 0) == 0) return "ib";
      if (name == "Socket") return "socket";
    }
    std::error_code ec;
    const bool has_hca = std::filesystem::exists("/sys/class/infiniband", ec) &&
                         !std::filesystem::is_empty("/sys/class/infiniband", ec);
    return (env_is("NCCL_IB_DISABLE", "1") || !has_hca) ? "socket" : "ib";
  }
  if (env_is("NCCL_P2P_DISABLE", "1")) return "shm";
  const int links = active_nvlink_count(bus_id_of(device_));
  return links > 0 ? "nvlink" : links == 0 ? "pcie" : "p2p";
}

// ---- memory ----

void* NcclCommunicator::allocate(std::size_t bytes) {
  CUDA_CHECK(cudaSetDevice(device_));
  void* buffer = nullptr;
  CUDA_CHECK(cudaMalloc(&buffer, bytes == 0 ? 1 : bytes));
  return buffer;
}

void NcclCommunicator::release(void* buffer) {
  if (buffer) CUDA_CHECK(cudaFree(buffer));
}

// On the communicator's stream, so a copy sees the results of every collective issued before it.
void NcclCommunicator::copy_from_host(void* dst, const void* host_src, std::size_t bytes) {
  CUDA_CHECK(cudaMemcpyAsync(dst, host_src, bytes, cudaMemcpyHostToDevice, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void NcclCommunicator::copy_to_host(void* host_dst, const void* src, std::size_t bytes) {
  CUDA_CHECK(cudaMemcpyAsync(host_dst, src, bytes, cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void* NcclCommunicator::scratch(std::size_t bytes) {
  if (bytes > scratch_bytes_) {
    // Grows rarely (the first in-place all-to-all of a new size); cudaFree waits for the stream.
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    CUDA_CHECK(cudaFree(scratch_));
    scratch_ = nullptr;
    CUDA_CHECK(cudaMalloc(&scratch_, bytes));
    scratch_bytes_ = bytes;
  }
  return scratch_;
}

// ---- groups ----

std::unique_ptr<Communicator> NcclCommunicator::split(int color, int key) {
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_Comm_split(mpi_, color < 0 ? MPI_UNDEFINED : color, key, &sub);
  std::unique_ptr<NcclCommunicator> child;
  if (sub != MPI_COMM_NULL)
    child.reset(new NcclCommunicator(sub, device_, timeout_seconds_));
  ncclComm_t comm = nullptr;
  {
    LogWindow window(child ? *child : *this);
    NCCL_CHECK(ncclCommSplit(state_->comm, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, &comm,
                             nullptr));
  }
  if (!child) return nullptr;
  child->adopt_nccl(comm);
  return child;
}

// ---- collectives ----

void NcclCommunicator::all_gather(const void* send, void* recv, std::size_t count, DType t) {
  LogWindow window(*this);
  NCCL_CHECK(ncclAllGather(send, recv, count, nccl_type(t), state_->comm, stream_));
}

void NcclCommunicator::reduce_scatter(const void* send, void* recv, std::size_t count, DType t) {
  LogWindow window(*this);
  // NCCL's in-place form is recv == send + rank*count. Callers may also pass recv == send (the
  // convention of the other ops): reduce in NCCL's place, then move this rank's block to the
  // front (the ranges cannot overlap for rank > 0).
  void* nccl_recv = recv;
  const bool front_in_place = send == recv && rank_ != 0;
  if (front_in_place) nccl_recv = offset(recv, static_cast<std::size_t>(rank_) * count, t);
  NCCL_CHECK(ncclReduceScatter(send, nccl_recv, count, nccl_type(t), ncclSum, state_->comm, stream_));
  if (front_in_place)
    CUDA_CHECK(cudaMemcpyAsync(recv, nccl_recv, count * dtype_size_bytes(t),
                               cudaMemcpyDeviceToDevice, stream_));
}

void NcclCommunicator::all_reduce(const void* send, void* recv, std::size_t count, DType t) {
  LogWindow window(*this);
  NCCL_CHECK(ncclAllReduce(send, recv, count, nccl_type(t), ncclSum, state_->comm, stream_));
}

// NCCL's send/recv within one group has no order between a send and a receive of the same
// peer, so in place the send side first moves to a staging buffer.
void NcclCommunicator::all_to_all(const void* send, void* recv, std::size_t count, DType t) {
  LogWindow window(*this);
  const std::size_t total_bytes = count * dtype_size_bytes(t) * static_cast<std::size_t>(size_);
  if (send == recv && count > 0) {
    void* staged = scratch(total_bytes);
    CUDA_CHECK(cudaMemcpyAsync(staged, send, total_bytes, cudaMemcpyDeviceToDevice, stream_));
    send = staged;
  }
  const ncclDataType_t type = nccl_type(t);
  NCCL_CHECK(ncclGroupStart());
  for (int peer = 0; peer < size_; ++peer) {
    const std::size_t at = static_cast<std::size_t>(peer) * count;
    NCCL_CHECK(ncclSend(offset(send, at, t), count, type, peer, state_->comm, stream_));
    NCCL_CHECK(ncclRecv(offset(recv, at, t), count, type, peer, state_->comm, stream_));
  }
  NCCL_CHECK(ncclGroupEnd());
}

void NcclCommunicator::all_to_allv(const void* send, PeerCounts send_layout, void* recv,
                                   PeerCounts recv_layout, DType t) {
  const std::size_t n = static_cast<std::size_t>(size_);
  if (send_layout.counts.size() != n || send_layout.displs.size() != n ||
      recv_layout.counts.size() != n || recv_layout.displs.size() != n)
    throw UsageError("all_to_allv needs one count and one displacement per rank (" +
                     std::to_string(n) + ")");
  LogWindow window(*this);
  if (send == recv) {
    std::size_t extent = 0;
    for (std::size_t p = 0; p < n; ++p)
      extent = std::max(extent, send_layout.displs[p] + send_layout.counts[p]);
    if (extent > 0) {
      void* staged = scratch(extent * dtype_size_bytes(t));
      CUDA_CHECK(cudaMemcpyAsync(staged, send, extent * dtype_size_bytes(t),
                                 cudaMemcpyDeviceToDevice, stream_));
      send = staged;
    }
  }
  const ncclDataType_t type = nccl_type(t);
  NCCL_CHECK(ncclGroupStart());
  for (std::size_t p = 0; p < n; ++p) {
    const int peer = static_cast<int>(p);
    if (send_layout.counts[p] > 0)
      NCCL_CHECK(ncclSend(offset(send, send_layout.displs[p], t), send_layout.counts[p], type, peer,
                          state_->comm, stream_));
    if (recv_layout.counts[p] > 0)
      NCCL_CHECK(ncclRecv(offset(recv, recv_layout.displs[p], t), recv_layout.counts[p], type, peer,
                          state_->comm, stream_));
  }
  NCCL_CHECK(ncclGroupEnd());
}

// ---- completion ----

std::shared_ptr<StreamEvent> NcclCommunicator::record() {
  return std::make_shared<CudaStreamEvent>(stream_, wait_policy(), "NCCL stream event");
}

void NcclCommunicator::wait_all(const std::string& what_for) {
  CudaStreamEvent done(stream_, wait_policy(), what_for);
  done.synchronize();
}

void NcclCommunicator::barrier() {
  {
    LogWindow window(*this);
    NCCL_CHECK(ncclAllReduce(barrier_word_, barrier_word_, 1, ncclFloat32, ncclSum, state_->comm,
                             stream_));
  }
  wait_all("barrier");
}

void NcclCommunicator::abort(int exit_code) {
  if (state_->comm) {
    state_->broken = true;
    ncclCommAbort(state_->comm);
    state_->comm = nullptr;
  }
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

}  // namespace collreplay
