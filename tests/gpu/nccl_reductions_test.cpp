// nccl-tests' datatypes and reductions through the NCCL communicator, filled and checked as the
// perf programs check them off the device kernels' path (host fill, collectives/values/
// check_values.hpp): every reduction of every dtype exact, every dtype moved exactly, and -m's
// group of ops delivering each op's data.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "collectives/nccl/nccl_backend.hpp"
#include "collectives/ops/op_registry.hpp"
#include "gpu_env.hpp"

namespace collreplay {
namespace {

using testing_gpu::have_gpu;

constexpr DType kAllTypes[] = {DType::bf16,     DType::f16, DType::f32, DType::fp8,
                               DType::fp8_e5m2, DType::f64, DType::i8,  DType::u8,
                               DType::i32,      DType::u32, DType::i64, DType::u64};
constexpr ReduceOp kAllOps[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max,
                                ReduceOp::avg};

class NcclReductions : public ::testing::Test {
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
  // NCCL reduces fp8 from sm_90 on (it refuses the call below that).
  static bool reduces_fp8() {
    int major = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, testing_gpu::my_device());
    return major >= 9;
  }

  // One op on device buffers filled from the host; the wrong elements over all ranks.
  static std::uint64_t run_and_check(const OpSpec& op, std::size_t count, DType t, Placement p,
                                     const OpParams& params) {
    Communicator& comm = *comm_;
    const OpLayout l = op.layout(count, comm.size(), comm.rank(), params);
    const std::size_t es = dtype_size_bytes(t);
    std::vector<unsigned char> a(std::max<std::size_t>(send_buffer_elements(l, p), 1) * es);
    std::vector<unsigned char> b(std::max<std::size_t>(l.recv_elements, 1) * es);
    fill_send_buffer(op, l, p, t, params.seed, a.data());
    poison_recv_buffer(l, t, b.data());
    void* da = comm.allocate(a.size());
    void* db = comm.allocate(b.size());
    comm.copy_from_host(da, a.data(), a.size());
    comm.copy_from_host(db, b.data(), b.size());
    void* recv = p == Placement::in_place ? da : db;
    op.issue(comm, l, da, recv, t);
    comm.wait_all(std::string(op.name()) + " test");
    std::vector<unsigned char>& host = p == Placement::in_place ? a : b;
    comm.copy_to_host(host.data(), recv, host.size());
    comm.release(da);
    comm.release(db);
    std::uint64_t wrong = count_wrong(op, l, p, t, params.seed, host.data());
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return wrong;
  }

  static std::unique_ptr<Communicator> comm_;
};
std::unique_ptr<Communicator> NcclReductions::comm_;

TEST_F(NcclReductions, EveryReductionOfEveryDtypeIsExact) {
  const bool fp8 = reduces_fp8();
  for (const char* name : {"all_reduce", "reduce_scatter"})
    for (DType t : kAllTypes) {
      if ((t == DType::fp8 || t == DType::fp8_e5m2) && !fp8) continue;
      for (ReduceOp r : kAllOps)
        for (Placement p : {Placement::out_of_place, Placement::in_place})
          for (std::size_t count : {std::size_t{1}, std::size_t{1031}, std::size_t{65537}}) {
            OpParams params;
            params.seed = 9;
            params.reduce_op = r;
            EXPECT_EQ(run_and_check(find_op(name), count, t, p, params), 0u)
                << name << " " << dtype_name(t) << " " << reduce_op_name(r) << " "
                << placement_name(p) << " " << count;
          }
    }
}

TEST_F(NcclReductions, EveryDtypeMovesExactly) {
  OpParams params;
  params.seed = 4;
  for (const char* name : {"all_gather", "all_to_all", "broadcast", "send_recv"})
    for (DType t : kAllTypes)
      for (Placement p : {Placement::out_of_place, Placement::in_place}) {
        const OpSpec& op = find_op(name);
        if (p == Placement::in_place && !op.supports_in_place()) continue;
        EXPECT_EQ(run_and_check(op, 4099, t, p, params), 0u)
            << name << " " << dtype_name(t) << " " << placement_name(p);
      }
}

// -m: three all-reduces in one ncclGroupStart/End, each on its own buffers, each exact.
TEST_F(NcclReductions, GroupedOpsDeliverEachOpsData) {
  Communicator& comm = *comm_;
  const OpSpec& op = find_op("all_reduce");
  const DType t = DType::f32;
  constexpr std::size_t kCount = 4099;
  std::vector<void*> buffers;
  std::vector<OpLayout> layouts;
  for (ReduceOp r : {ReduceOp::sum, ReduceOp::max, ReduceOp::avg}) {
    OpParams params;
    params.seed = 12;
    params.reduce_op = r;
    layouts.push_back(op.layout(kCount, comm.size(), comm.rank(), params));
    std::vector<unsigned char> host(kCount * dtype_size_bytes(t));
    fill_send_buffer(op, layouts.back(), Placement::in_place, t, 12, host.data());
    buffers.push_back(comm.allocate(host.size()));
    comm.copy_from_host(buffers.back(), host.data(), host.size());
  }
  comm.grouped([&] {
    for (std::size_t i = 0; i < buffers.size(); ++i)
      op.issue(comm, layouts[i], buffers[i], buffers[i], t);
  });
  comm.wait_all("grouped all-reduces");
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    std::vector<unsigned char> host(kCount * dtype_size_bytes(t));
    comm.copy_to_host(host.data(), buffers[i], host.size());
    EXPECT_EQ(count_wrong(op, layouts[i], Placement::in_place, t, 12, host.data()), 0u) << i;
    comm.release(buffers[i]);
  }
}

}  // namespace
}  // namespace collreplay
