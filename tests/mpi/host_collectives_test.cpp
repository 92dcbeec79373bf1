// The MPI backend's own host reductions (pairwise exchange, staged requests): MPI's in-place
// form, several ops in flight at once, counts smaller than the rank count; the staged request
// queue they run on; and the host GEMM probe taking turns across ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <thread>
#include <vector>

#include "bench/compute/gemm/gemm_probe.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "collectives/mpi/mpi_request_queue.hpp"
#include "collectives/values/host_values.hpp"

namespace collreplay {
namespace {

BackendOptions test_options() {
  BackendOptions options;
  options.timeout_seconds = 30;
  return options;
}

// Element i of rank r's input: small integers, exact in every dtype and their sums.
float input(int r, std::size_t i) {
  return static_cast<float>((r * 7 + static_cast<int>(i % 11)) % 13);
}

std::vector<unsigned char> filled(DType t, int rank, std::size_t elements) {
  std::vector<unsigned char> buffer(std::max<std::size_t>(elements, 1) * dtype_size_bytes(t));
  for (std::size_t i = 0; i < elements; ++i) store_value(t, buffer.data(), i, input(rank, i));
  return buffer;
}

float sum_over_ranks(int ranks, std::size_t i) {
  float sum = 0;
  for (int r = 0; r < ranks; ++r) sum += input(r, i);
  return sum;
}

TEST(HostCollectives, ReduceScatterInMpiInPlaceFormLeavesTheResultAtTheStart) {
  MpiCommunicator comm(MPI_COMM_WORLD, test_options());
  const int n = comm.size(), me = comm.rank();
  for (DType t : {DType::bf16, DType::f16, DType::f32}) {
    const std::size_t count = 1001;
    auto buffer = filled(t, me, count * n);
    comm.reduce_scatter(buffer.data(), buffer.data(), count, t);
    comm.wait_all("in-place reduce_scatter");
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i)
      wrong += load_value(t, buffer.data(), i) != sum_over_ranks(n, me * count + i);
    EXPECT_EQ(wrong, 0u) << dtype_name(t);
  }
}

TEST(HostCollectives, SeveralOpsInFlightCompleteInOrderWithTheirOwnData) {
  MpiCommunicator comm(MPI_COMM_WORLD, test_options());
  const int n = comm.size(), me = comm.rank();
  const DType t = DType::bf16;
  const std::size_t count = 4097;
  auto rs_in_1 = filled(t, me, count * n), rs_in_2 = filled(t, me + 1, count * n);
  std::vector<unsigned char> rs_out_1(count * 2), rs_out_2(count * 2);
  auto ar = filled(t, me, count);
  comm.reduce_scatter(rs_in_1.data(), rs_out_1.data(), count, t);
  comm.all_reduce(ar.data(), ar.data(), count, t);
  comm.reduce_scatter(rs_in_2.data(), rs_out_2.data(), count, t);
  const auto after_all = comm.record();
  after_all->synchronize();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) {
    wrong += load_value(t, rs_out_1.data(), i) != sum_over_ranks(n, me * count + i);
    float shifted = 0;  // the second reduce-scatter's inputs are the first's of rank + 1
    for (int r = 1; r <= n; ++r) shifted += input(r, me * count + i);
    wrong += load_value(t, rs_out_2.data(), i) != shifted;
    wrong += load_value(t, ar.data(), i) != sum_over_ranks(n, i);
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(HostCollectives, AllReduceOfFewerElementsThanRanks) {
  MpiCommunicator comm(MPI_COMM_WORLD, test_options());
  const int n = comm.size(), me = comm.rank();
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
    auto in = filled(DType::f16, me, count);
    std::vector<unsigned char> out(std::max<std::size_t>(count, 1) * 2);
    comm.all_reduce(in.data(), out.data(), count, DType::f16);
    comm.wait_all("small all_reduce");
    for (std::size_t i = 0; i < count; ++i)
      EXPECT_EQ(load_value(DType::f16, out.data(), i), sum_over_ranks(n, i)) << count << " " << i;
  }
}

TEST(MpiRequestQueue, StagedOpsSeeEachRequestAndRunEveryStage) {
  MpiRequestQueue queue(0);
  int a = 5, b = 0, c = 7, d = 0;
  auto self_exchange = [](int* from, int* to, int tag) {
    std::vector<MPI_Request> requests(2);
    MPI_Irecv(to, 1, MPI_INT, 0, tag, MPI_COMM_SELF, &requests[0]);
    MPI_Isend(from, 1, MPI_INT, 0, tag, MPI_COMM_SELF, &requests[1]);
    return requests;
  };
  std::vector<std::size_t> seen;
  int stages_run = 0;
  bool done = false;
  MpiRequestQueue::Stages stages;
  stages.on_requests_done = [&](std::span<const int> indices) {
    for (int index : indices) seen.push_back(static_cast<std::size_t>(index));
  };
  stages.next_stage = [&]() -> std::vector<MPI_Request> {
    if (stages_run++ > 0) return {};
    EXPECT_EQ(b, 5);  // the first stage is complete before the second starts
    return self_exchange(&c, &d, 2);
  };
  const std::uint64_t seq = queue.push_staged("staged test", self_exchange(&a, &b, 1),
                                              std::move(stages), [&] { done = true; });
  queue.wait_until(seq, 10, "staged test");
  EXPECT_TRUE(done);
  EXPECT_EQ(d, 7);
  EXPECT_EQ(stages_run, 2);
  EXPECT_EQ(seen.size(), 4u);  // two requests in each of two stages
}

// Seconds on the host's monotonic clock, comparable across processes (OpenMPI's MPI_Wtime counts
// from each process's own start).
double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A host "GEMM" that takes 30 ms and remembers when it ran.
class RecordingEngine final : public ComputeEngine {
 public:
  struct Event final : StreamEvent {
    double at_s = host_seconds();
    bool query() override { return true; }
    void synchronize() override {}
    double elapsed_ms_since(const StreamEvent& earlier) const override {
      return (at_s - dynamic_cast<const Event&>(earlier).at_s) * 1e3;
    }
    void* native_handle() const override { return nullptr; }
  };
  std::string description() const override { return "recording"; }
  bool enqueues_on_device() const override { return false; }
  std::uint64_t reserve(const std::vector<GemmShape>&, DType) override { return 0; }
  void issue(const ComputeOp&, double, std::span<const std::shared_ptr<StreamEvent>>) override {
    if (first_s < 0) first_s = host_seconds();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    last_s = host_seconds();
  }
  std::shared_ptr<StreamEvent> record() override { return std::make_shared<Event>(); }
  void synchronize() override {}
  double first_s = -1, last_s = -1;
};

TEST(GemmProbe, RanksTakeTurns) {
  RecordingEngine engine;
  const GemmProbe probe = probe_gemm_rank_by_rank(engine, MPI_COMM_WORLD, 64, 2);
  EXPECT_GT(probe.median_ms, 25.0);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> spans(2 * static_cast<std::size_t>(size));
  const double mine[2] = {engine.first_s, engine.last_s};
  MPI_Allgather(mine, 2, MPI_DOUBLE, spans.data(), 2, MPI_DOUBLE, MPI_COMM_WORLD);
  // Rank r's probe ends before rank r + 1's begins (one clock: all ranks on this host).
  for (int r = 0; r + 1 < size; ++r)
    EXPECT_LE(spans[2 * r + 1], spans[2 * (r + 1)]) << "ranks " << r << " and " << r + 1;
}

}  // namespace
}  // namespace collreplay
