// Every op on the MPI communicator, every dtype, out-of-place and in-place, with the exact data
// check summed over ranks; plus split, events and the big-count datatype path.
#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "collectives/mpi/mpi_communicator.hpp"
#include "collectives/host/mpi_dtypes.hpp"
#include "collectives/mpi/mpi_transport.hpp"
#include "collectives/ops/op_registry.hpp"

namespace collreplay {
namespace {

constexpr DType kAllTypes[] = {DType::bf16, DType::f16, DType::f32, DType::fp8, DType::fp8_e5m2,
                               DType::f64,  DType::i8,  DType::u8,  DType::i32, DType::u32,
                               DType::i64,  DType::u64};

BackendOptions test_options() {
  BackendOptions options;
  options.timeout_seconds = 30;  // a bug fails the test instead of hanging the suite
  return options;
}

std::uint64_t run_and_check(Communicator& comm, const OpSpec& op, std::size_t count, DType t,
                            Placement p, const OpParams& params) {
  const OpLayout l = op.layout(count, comm.size(), comm.rank(), params);
  const std::size_t es = dtype_size_bytes(t);
  std::vector<unsigned char> a(std::max<std::size_t>(send_buffer_elements(l, p), 1) * es);
  std::vector<unsigned char> b(std::max<std::size_t>(l.recv_elements, 1) * es);
  fill_send_buffer(op, l, p, t, params.seed, a.data());
  poison_recv_buffer(l, t, b.data());
  void* recv = p == Placement::in_place ? a.data() : b.data();
  op.issue(comm, l, a.data(), recv, t);
  comm.wait_all(std::string(op.name()) + " test");
  std::uint64_t wrong = count_wrong(op, l, p, t, params.seed, recv);
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return wrong;
}

TEST(MpiCommunicator, EveryOpEveryDtypeIsExact) {
  MpiCommunicator comm(MPI_COMM_WORLD, test_options());
  OpParams params;
  params.seed = 11;
  for (const OpSpec* op : all_ops())
    for (DType t : kAllTypes)
      if (!op->needs_partner())  // send, recv: in p2p groups (mpi_p2p_test.cpp)
      for (Placement p : {Placement::out_of_place, Placement::in_place})
        for (std::size_t count : {std::size_t{1}, std::size_t{1000}, std::size_t{4099}}) {
          if (p == Placement::in_place && !op->supports_in_place()) continue;
          EXPECT_EQ(run_and_check(comm, *op, count, t, p, params), 0u)
              << op->name() << " " << dtype_name(t) << " " << placement_name(p) << " " << count;
        }
}

// nccl-tests' -o on the host backend's own reductions: every dtype, both placements, counts
// below, at and beyond the rank count.
TEST(MpiCommunicator, EveryReductionOfEveryDtypeIsExact) {
  MpiCommunicator comm(MPI_COMM_WORLD, test_options());
  for (const char* name : {"all_reduce", "reduce_scatter"})
    for (DType t : kAllTypes)
      for (ReduceOp r : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max,
                         ReduceOp::avg})
        for (Placement p : {Placement::out_of_place, Placement::in_place})
          for (std::size_t count : {std::size_t{1}, std::size_t{3}, std::size_t{1031}}) {
            OpParams params;
            params.seed = 5;
            params.reduce_op = r;
            EXPECT_EQ(run_and_check(comm, find_op(name), count, t, p, params), 0u)
                << name << " " << dtype_name(t) << " " << reduce_op_name(r) << " "
                << placement_name(p) << " " << count;
          }
}

TEST(MpiCommunicator, SkewedAllToAllvIsExact) {
  MpiCommunicator comm(MPI_COMM_WORLD, test_options());
  for (const char* skew : {"zipf:1.5", "hotspot:1"}) {
    OpParams params;
    params.seed = 3;
    params.skew = parse_skew(skew);
    EXPECT_EQ(run_and_check(comm, find_op("all_to_allv"), 777, DType::bf16, Placement::out_of_place,
                            params),
              0u)
        << skew;
  }
}

TEST(MpiCommunicator, SplitFormsGroupsByColor) {
  MpiCommunicator world(MPI_COMM_WORLD, test_options());
  const auto half = world.split(world.rank() % 2, world.rank());
  EXPECT_EQ(half->size(), (world.size() + 1 - world.rank() % 2) / 2);
  EXPECT_EQ(half->rank(), world.rank() / 2);
  std::vector<float> values{1.0f, static_cast<float>(world.rank())};
  half->all_reduce(values.data(), values.data(), 2, DType::f32);
  half->wait_all("split all_reduce");
  EXPECT_EQ(values[0], static_cast<float>(half->size()));
  float expected = 0;
  for (int r = world.rank() % 2; r < world.size(); r += 2) expected += static_cast<float>(r);
  EXPECT_EQ(values[1], expected);
}

TEST(MpiCommunicator, EventsCompleteInIssueOrderAndTime) {
  MpiCommunicator comm(MPI_COMM_WORLD, test_options());
  std::vector<float> data(1 << 16, 1.0f);
  comm.barrier();
  const auto start = comm.record();
  EXPECT_TRUE(start->query());  // nothing pending
  comm.all_reduce(data.data(), data.data(), data.size(), DType::f32);
  const auto stop = comm.record();
  stop->synchronize();
  EXPECT_TRUE(stop->query());
  EXPECT_GE(stop->elapsed_ms_since(*start), 0.0);
  EXPECT_EQ(data[0], static_cast<float>(comm.size()));
  EXPECT_FALSE(comm.transport().empty());
  EXPECT_EQ(comm.native_stream(), nullptr);
  EXPECT_TRUE(comm.library_versions().contains("mpi"));
}

// The PML is read from OpenMPI itself, so a transport ask is checked against what was selected.
TEST(MpiTransport, SelectedPmlIsOpenMpisOwn) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int length = 0;
  MPI_Get_library_version(version, &length);
  if (std::string(version).find("Open MPI") == std::string::npos) GTEST_SKIP() << "not OpenMPI";
  const std::string pml = selected_mpi_pml();
  EXPECT_TRUE(pml == "ob1" || pml == "ucx" || pml == "cm") << "'" << pml << "'";
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string transport = detect_mpi_transport(MPI_COMM_WORLD);
  if (size > 1 && pml == "ob1") {
    EXPECT_TRUE(transport == "shm" || transport == "tcp") << transport;
  }
  if (pml == "ob1") {
    EXPECT_TRUE(mpi_transport_interfaces("shm").empty());
  }
}

TEST(MpiDtypes, HugeCountsBecomeBlocks) {
  MpiTypeCache types;
  const std::size_t elements = std::size_t{3} << 31;  // 6 Gi elements
  const MpiSpan span = types.span(DType::bf16, elements);
  int block_bytes = 0;
  MPI_Type_size(span.type, &block_bytes);
  EXPECT_LE(span.count, INT_MAX);
  EXPECT_EQ(static_cast<std::size_t>(block_bytes) * static_cast<std::size_t>(span.count),
            elements * 2);
  EXPECT_NE(types.reduce_op(DType::f32, ReduceOp::sum, span.type), MPI_SUM);  // blocks: user op
  EXPECT_EQ(types.reduce_op(DType::f32, ReduceOp::sum, MPI_FLOAT), MPI_SUM);
  // The matching MPI types and MPI's own ops where MPI knows the type; bf16 needs a user op.
  EXPECT_EQ(mpi_element_type(DType::i8), MPI_INT8_T);
  EXPECT_EQ(mpi_element_type(DType::u64), MPI_UINT64_T);
  EXPECT_EQ(mpi_element_type(DType::f64), MPI_DOUBLE);
  EXPECT_EQ(types.reduce_op(DType::i32, ReduceOp::max, MPI_INT32_T), MPI_MAX);
  EXPECT_EQ(types.reduce_op(DType::f64, ReduceOp::prod, MPI_DOUBLE), MPI_PROD);
  EXPECT_NE(types.reduce_op(DType::bf16, ReduceOp::min, MPI_UINT16_T), MPI_MIN);
  EXPECT_THROW(types.reduce_op(DType::f32, ReduceOp::avg, MPI_FLOAT), UsageError);
  EXPECT_EQ(types.span(DType::f32, 1000).type, MPI_FLOAT);
}

}  // namespace
}  // namespace collreplay
