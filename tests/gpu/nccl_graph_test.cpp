// CUDA-graph capture (-G) and registered buffers (-R) through the NCCL communicator: the ops a
// graph replays and the ops on registered buffers deliver the same data as plain ones.
#include <gtest/gtest.h>

#include <memory>

#include "collectives/device/device_pattern.hpp"
#include "collectives/nccl/nccl_backend.hpp"
#include "gpu_env.hpp"

namespace collreplay {
namespace {

using testing_gpu::have_gpu;

constexpr std::uint64_t kSeed = 77;
constexpr std::size_t kCount = (std::size_t{1} << 16) + 5;

std::unique_ptr<Communicator> make_comm(bool register_buffers) {
  BackendOptions options;
  options.timeout_seconds = 120;
  options.register_buffers = register_buffers;
  return make_nccl_communicator(MPI_COMM_WORLD, options);
}

// All-gathers kCount bf16 elements per rank, `launches` times through a graph of `ops_per_graph`
// ops (0: issued directly), and returns the wrong elements of the result.
std::uint64_t all_gather_wrong(Communicator& comm, int ops_per_graph, int launches) {
  const DType t = DType::bf16;
  const int n = comm.size(), r = comm.rank();
  void* send = comm.allocate(kCount * dtype_size_bytes(t));
  void* recv = comm.allocate(kCount * n * dtype_size_bytes(t));
  device_fill(send, kCount, t, kSeed, r, 0, comm.native_stream());
  device_fill(recv, kCount * n, t, kSeed + 1, r, 0, comm.native_stream());  // not the answer
  if (ops_per_graph == 0) {
    comm.all_gather(send, recv, kCount, t);
  } else {
    comm.all_gather(send, recv, kCount, t);  // connections made before recording
    comm.wait_all("before capture");
    device_fill(recv, kCount * n, t, kSeed + 1, r, 0, comm.native_stream());
    const std::unique_ptr<CapturedWork> graph = comm.capture([&] {
      for (int i = 0; i < ops_per_graph; ++i) comm.all_gather(send, recv, kCount, t);
    });
    for (int i = 0; i < launches; ++i) graph->launch();
  }
  comm.wait_all("all_gather");
  const std::uint64_t wrong =
      device_count_wrong_all_gather(recv, kCount, t, kSeed, n, comm.native_stream());
  comm.release(send);
  comm.release(recv);
  return wrong;
}

TEST(NcclGraph, CapturedOpsDeliverTheData) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  const std::unique_ptr<Communicator> comm = make_comm(false);
  EXPECT_EQ(all_gather_wrong(*comm, 3, 2), 0u);
}

TEST(NcclGraph, CaptureDoesNotRunTheOps) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  const std::unique_ptr<Communicator> comm = make_comm(false);
  EXPECT_GT(all_gather_wrong(*comm, 3, 0), 0u);  // recorded, never launched: recv untouched
}

TEST(NcclRegistration, RegisteredBuffersDeliverTheData) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  const std::unique_ptr<Communicator> comm = make_comm(true);
  EXPECT_EQ(all_gather_wrong(*comm, 0, 0), 0u);
  EXPECT_EQ(all_gather_wrong(*comm, 2, 3), 0u);
}

}  // namespace
}  // namespace collreplay
