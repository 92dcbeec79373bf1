// Every collective through the NCCL communicator, filled and checked on the device: zero wrong,
// in place and out of place, bf16 / fp16 / fp32; a corrupted element is caught.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/device/device_pattern.hpp"
#include "collectives/nccl/nccl_backend.hpp"
#include "gpu_env.hpp"

namespace collreplay {
namespace {

using testing_gpu::have_gpu;

constexpr std::uint64_t kSeed = 1234;
constexpr std::size_t kCount = (std::size_t{1} << 20) + 17;  // odd: no alignment luck

class NcclOps : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!have_gpu()) return;
    BackendOptions options;
    options.timeout_seconds = 120;
    comm_ = make_nccl_communicator(MPI_COMM_WORLD, options);
  }
  static void TearDownTestSuite() { comm_.reset(); }
  void SetUp() override {
    if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  }
  Communicator& comm() { return *comm_; }
  void* stream() { return comm_->native_stream(); }

  // Device buffer freed at the end of the test.
  void* buffer(std::size_t bytes) {
    void* p = comm_->allocate(bytes);
    buffers_.emplace_back(p, [c = comm_.get()](void* q) { c->release(q); });
    return p;
  }

  static std::unique_ptr<Communicator> comm_;
  std::vector<std::unique_ptr<void, std::function<void(void*)>>> buffers_;
};
std::unique_ptr<Communicator> NcclOps::comm_;

const DType kTypes[] = {DType::bf16, DType::f16, DType::f32};

TEST_F(NcclOps, AllGather) {
  const int n = comm().size(), r = comm().rank();
  for (DType t : kTypes)
    for (bool in_place : {false, true}) {
      const std::size_t elt = dtype_size_bytes(t);
      char* recv = static_cast<char*>(buffer(kCount * n * elt));
      char* send = in_place ? recv + r * kCount * elt : static_cast<char*>(buffer(kCount * elt));
      device_fill(send, kCount, t, kSeed, r, 0, stream());
      comm().all_gather(send, recv, kCount, t);
      comm().wait_all("all_gather");
      EXPECT_EQ(device_count_wrong_all_gather(recv, kCount, t, kSeed, n, stream()), 0u)
          << dtype_name(t) << (in_place ? " in place" : " out of place");
    }
}

TEST_F(NcclOps, ReduceScatter) {
  const int n = comm().size(), r = comm().rank();
  for (DType t : kTypes)
    for (int placement = 0; placement < 3; ++placement) {  // out, NCCL in place, recv == send
      const std::size_t elt = dtype_size_bytes(t);
      char* send = static_cast<char*>(buffer(kCount * n * elt));
      char* recv = placement == 0   ? static_cast<char*>(buffer(kCount * elt))
                   : placement == 1 ? send + r * kCount * elt
                                    : send;
      device_fill(send, kCount * n, t, kSeed, r, 0, stream());
      comm().reduce_scatter(send, recv, kCount, t);
      comm().wait_all("reduce_scatter");
      EXPECT_EQ(device_count_wrong_reduce_scatter(recv, kCount, t, kSeed, r, n, stream()), 0u)
          << dtype_name(t) << " placement " << placement;
    }
}

TEST_F(NcclOps, AllReduce) {
  const int n = comm().size(), r = comm().rank();
  for (DType t : kTypes)
    for (bool in_place : {false, true}) {
      const std::size_t elt = dtype_size_bytes(t);
      void* send = buffer(kCount * elt);
      void* recv = in_place ? send : buffer(kCount * elt);
      device_fill(send, kCount, t, kSeed, r, 0, stream());
      comm().all_reduce(send, recv, kCount, t);
      comm().wait_all("all_reduce");
      EXPECT_EQ(device_count_wrong_all_reduce(recv, kCount, t, kSeed, n, stream()), 0u)
          << dtype_name(t) << (in_place ? " in place" : " out of place");
    }
}

TEST_F(NcclOps, AllToAll) {
  const int n = comm().size(), r = comm().rank();
  for (DType t : kTypes)
    for (bool in_place : {false, true}) {
      const std::size_t elt = dtype_size_bytes(t);
      void* send = buffer(kCount * n * elt);
      void* recv = in_place ? send : buffer(kCount * n * elt);
      device_fill(send, kCount * n, t, kSeed, r, 0, stream());
      comm().all_to_all(send, recv, kCount, t);
      comm().wait_all("all_to_all");
      EXPECT_EQ(device_count_wrong_all_to_all(recv, kCount, t, kSeed, r, n, stream()), 0u)
          << dtype_name(t) << (in_place ? " in place" : " out of place");
    }
}

// Uneven counts every rank can compute: rank `from` sends count_of(from, to) elements to `to`.
std::size_t count_of(int from, int to) {
  return 1000 + static_cast<std::size_t>((from * 7 + to * 3) % 5) * 4099;
}

TEST_F(NcclOps, AllToAllv) {
  const int n = comm().size(), r = comm().rank();
  std::vector<std::size_t> send_counts(n), send_displs(n), recv_counts(n), recv_displs(n),
      peer_send_displs(n);
  std::size_t send_total = 0, recv_total = 0;
  for (int p = 0; p < n; ++p) {
    send_counts[p] = count_of(r, p);
    send_displs[p] = send_total;
    send_total += send_counts[p];
    recv_counts[p] = count_of(p, r);
    recv_displs[p] = recv_total;
    recv_total += recv_counts[p];
    for (int q = 0; q < r; ++q) peer_send_displs[p] += count_of(p, q);
  }
  for (DType t : kTypes)
    for (bool in_place : {false, true}) {
      const std::size_t elt = dtype_size_bytes(t);
      void* send = buffer(std::max(send_total, recv_total) * elt);
      void* recv = in_place ? send : buffer(recv_total * elt);
      device_fill(send, send_total, t, kSeed, r, 0, stream());
      comm().all_to_allv(send, {send_counts, send_displs}, recv, {recv_counts, recv_displs}, t);
      comm().wait_all("all_to_allv");
      EXPECT_EQ(
          device_count_wrong_all_to_allv(recv, t, kSeed, n, recv_counts.data(), recv_displs.data(),
                                         peer_send_displs.data(), stream()),
          0u)
          << dtype_name(t) << (in_place ? " in place" : " out of place");
    }
}

TEST_F(NcclOps, CorruptedElementIsCaught) {
  const int n = comm().size(), r = comm().rank();
  const DType t = DType::bf16;
  char* recv = static_cast<char*>(buffer(kCount * n * 2));
  device_fill(recv + r * kCount * 2, kCount, t, kSeed, r, 0, stream());
  comm().all_gather(recv + r * kCount * 2, recv, kCount, t);
  comm().wait_all("all_gather");
  device_poke(recv, kCount / 2, t, 1024.0f, stream());  // far outside the pattern's range
  EXPECT_EQ(device_count_wrong_all_gather(recv, kCount, t, kSeed, n, stream()), 1u);
}

TEST_F(NcclOps, TransportIsObserved) {
  void* word = buffer(4);
  comm().all_reduce(word, word, 1, DType::f32);
  comm().wait_all("all_reduce");
  const std::string transport = comm().transport();
  if (comm().rank() == 0) std::cout << "[ transport ] " << transport << "\n";
  if (comm().size() == 1) {
    EXPECT_EQ(transport, "self");
  }
  EXPECT_EQ(transport.find("(inferred)"), std::string::npos) << transport;
  // sweeps/gpu/gpu_check.sh says which path each of its runs forces (nvlink, socket).
  if (const char* want = std::getenv("COLLREPLAY_EXPECT_TRANSPORT"); want && comm().size() > 1) {
    EXPECT_EQ(transport, want);
  }
}

TEST_F(NcclOps, EventsTimeAndBarrierReturns) {
  const std::size_t bytes = std::size_t{64} << 20;
  void* send = buffer(bytes);
  void* recv = buffer(bytes * comm().size());
  comm().barrier();
  auto start = comm().record();
  comm().all_gather(send, recv, bytes / 2, DType::bf16);
  auto stop = comm().record();
  stop->synchronize();
  EXPECT_TRUE(stop->query());
  const double ms = stop->elapsed_ms_since(*start);
  EXPECT_GT(ms, 0.0);
  EXPECT_LT(ms, 10000.0);
}

TEST_F(NcclOps, SplitIntoSingleRanks) {
  auto alone = comm().split(comm().rank(), 0);
  ASSERT_NE(alone, nullptr);
  EXPECT_EQ(alone->size(), 1);
  EXPECT_EQ(alone->rank(), 0);
  void* send = alone->allocate(kCount * 4);
  void* recv = alone->allocate(kCount * 4);
  device_fill(send, kCount, DType::f32, kSeed, 0, 0, alone->native_stream());
  alone->all_reduce(send, recv, kCount, DType::f32);
  alone->wait_all("split all_reduce");
  EXPECT_EQ(
      device_count_wrong_all_reduce(recv, kCount, DType::f32, kSeed, 1, alone->native_stream()),
      0u);
  EXPECT_EQ(alone->transport(), "self");
  alone->release(send);
  alone->release(recv);
}

}  // namespace
}  // namespace collreplay
