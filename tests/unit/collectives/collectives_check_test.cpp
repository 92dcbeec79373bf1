// The host check against an independent host simulation of each collective: a correct result
// has zero wrong elements, and one corrupted element is caught (in every dtype and placement).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "collectives/values/check_values.hpp"
#include "collectives/values/host_values.hpp"
#include "collectives/ops/op_registry.hpp"

namespace collreplay {
namespace {

constexpr int kRanks = 3;
constexpr std::uint64_t kSeed = 99;

// Every rank's input, as the harness fills it (out-of-place send buffer), as floats.
std::vector<std::vector<float>> inputs(const OpSpec& op, std::size_t count, DType t,
                                       const OpParams& params) {
  std::vector<std::vector<float>> all;
  for (int r = 0; r < kRanks; ++r) {
    const OpLayout l = op.layout(count, kRanks, r, params);
    std::vector<unsigned char> raw(l.send_elements * dtype_size_bytes(t));
    fill_send_buffer(op, l, Placement::out_of_place, t, kSeed, raw.data());
    std::vector<float> values(l.send_elements);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = load_value(t, raw.data(), i);
    all.push_back(values);
  }
  return all;
}

// What rank `rank` must receive, computed from the collective's definition.
std::vector<float> simulate(const OpSpec& op, const OpLayout& l,
                            const std::vector<std::vector<float>>& in) {
  const std::size_t c = l.count, r = static_cast<std::size_t>(l.rank);
  std::vector<float> out(l.recv_elements, 0.0f);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (op.name() == "all_gather") out[i] = in[i / c][i % c];
    if (op.name() == "reduce_scatter")
      for (const auto& src : in) out[i] += src[r * c + i];
    if (op.name() == "all_reduce")
      for (const auto& src : in) out[i] += src[i];
    if (op.name() == "all_to_all") out[i] = in[i / c][r * c + i % c];
    if (op.name() == "broadcast") out[i] = in[static_cast<std::size_t>(l.root)][i];
    if (op.name() == "send_recv") out[i] = in[(r + kRanks - 1) % kRanks][i];
    if (op.name() == "recv") out[i] = in[static_cast<std::size_t>(l.peer)][i];
  }
  if (op.name() == "all_to_allv") {
    for (int src = 0; src < kRanks; ++src) {
      std::size_t from = 0;
      for (int d = 0; d < l.rank; ++d) from += l.peers->at(src, d);
      for (std::size_t j = 0; j < l.recv_counts[static_cast<std::size_t>(src)]; ++j)
        out[l.recv_displs[static_cast<std::size_t>(src)] + j] =
            in[static_cast<std::size_t>(src)][from + j];
    }
  }
  return out;
}

TEST(HostCheck, AcceptsCorrectAndCatchesCorruptedResults) {
  OpParams params;
  params.seed = kSeed;
  params.skew = parse_skew("zipf:1.3");
  params.root = 2;  // broadcast from a rank other than 0
  params.peer = 1;  // recv from rank 1
  for (const OpSpec* op : all_ops()) {
    if (op->name() == "send") continue;  // receives nothing: nothing to check
    for (DType t : {DType::bf16, DType::f16, DType::f32, DType::fp8, DType::fp8_e5m2, DType::f64,
                    DType::i8, DType::u8, DType::i32, DType::u32, DType::i64, DType::u64}) {
      // A recv's data is what its peer's send filled (recv itself sends nothing).
      const OpSpec& filled_by = op->name() == "recv" ? find_op("send") : *op;
      const auto in = inputs(filled_by, 37, t, params);
      for (int rank = 0; rank < kRanks; ++rank) {
        const OpLayout l = op->layout(37, kRanks, rank, params);
        const std::vector<float> expected = simulate(*op, l, in);
        for (Placement p : {Placement::out_of_place, Placement::in_place}) {
          if (p == Placement::in_place && !op->supports_in_place()) continue;
          const std::size_t offset = p == Placement::in_place ? l.in_place_recv_offset : 0;
          std::vector<unsigned char> buffer(recv_buffer_elements(l, p) * dtype_size_bytes(t));
          for (std::size_t i = 0; i < expected.size(); ++i)
            store_value(t, buffer.data(), offset + i, expected[i]);
          const std::string what = std::string(op->name()) + " " + std::string(dtype_name(t)) +
                                   " rank " + std::to_string(rank) + " " +
                                   std::string(placement_name(p));
          EXPECT_EQ(count_wrong(*op, l, p, t, kSeed, buffer.data()), 0u) << what;
          store_exact(t, buffer.data(), offset + expected.size() / 2, poison_value(t));
          EXPECT_EQ(count_wrong(*op, l, p, t, kSeed, buffer.data()), 1u) << what;
        }
      }
    }
  }
}

TEST(HostCheck, PoisonsEverythingButTheInput) {
  const OpSpec& ag = find_op("all_gather");
  const OpLayout l = ag.layout(4, 2, 1, OpParams{});
  std::vector<float> buffer(l.in_place_elements);
  fill_send_buffer(ag, l, Placement::in_place, DType::f32, 5, buffer.data());
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(buffer[i], 1000.0f);
  for (std::size_t i = 4; i < 8; ++i) EXPECT_LE(std::abs(buffer[i]), 2.0f);
}

}  // namespace
}  // namespace collreplay
