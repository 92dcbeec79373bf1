// The data checks of every collective dtype and NCCL reduction: the filled inputs are exact in
// their type, reducing them on the host (in rank order and reversed, as the GPU's order is not
// known) gives exactly what the check expects, and one corrupted element is caught; plus the
// host reductions' integer wrap-around and avg steps, and the fp8 codecs against a brute-force
// nearest-value search.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "collectives/ops/op_registry.hpp"
#include "collectives/values/check_values.hpp"
#include "collectives/values/host_reduce.hpp"
#include "collectives/values/host_values.hpp"

namespace collreplay {
namespace {

constexpr DType kAllTypes[] = {DType::bf16,     DType::f16, DType::f32, DType::fp8,
                               DType::fp8_e5m2, DType::f64, DType::i8,  DType::u8,
                               DType::i32,      DType::u32, DType::i64, DType::u64};
constexpr ReduceOp kAllOps[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max,
                                ReduceOp::avg};
constexpr std::uint64_t kSeed = 21;

std::string what(const OpSpec& op, DType t, ReduceOp r, int ranks) {
  return std::string(op.name()) + " " + std::string(dtype_name(t)) + " " +
         std::string(reduce_op_name(r)) + " over " + std::to_string(ranks) + " ranks";
}

// Every rank's filled send buffer (out of place), as the harness writes it.
std::vector<std::vector<unsigned char>> inputs(const OpSpec& op, std::size_t count, DType t,
                                               const OpParams& params, int ranks) {
  std::vector<std::vector<unsigned char>> all;
  for (int r = 0; r < ranks; ++r) {
    const OpLayout l = op.layout(count, ranks, r, params);
    all.emplace_back(l.send_elements * dtype_size_bytes(t));
    fill_send_buffer(op, l, Placement::out_of_place, t, kSeed, all.back().data());
  }
  return all;
}

// Rank `rank`'s result, reduced on the host from the ranks' slices in `order`, with avg's steps
// around the sum as NCCL takes them.
std::vector<unsigned char> reduce_on_host(const OpSpec& op, const OpLayout& l, DType t, ReduceOp r,
                                          std::vector<std::vector<unsigned char>> in,
                                          const std::vector<int>& order) {
  const std::size_t es = dtype_size_bytes(t);
  const std::size_t offset = op.name() == "reduce_scatter" ? l.count * l.rank : 0;
  const int ranks = static_cast<int>(in.size());
  if (r == ReduceOp::avg && averages_before_summing(t))
    for (auto& buffer : in) premultiply_values(t, buffer.data(), buffer.size() / es, ranks);
  std::vector<unsigned char> out(l.recv_elements * es);
  std::vector<const void*> others;
  for (std::size_t k = 1; k < order.size(); ++k)
    others.push_back(in[order[k]].data() + offset * es);
  reduce_values(t, r, out.data(), in[order[0]].data() + offset * es, {}, l.recv_elements);
  for (const void* other : others) {
    const void* one[] = {other};
    reduce_values(t, r, out.data(), out.data(), one, l.recv_elements);  // one step at a time
  }
  if (r == ReduceOp::avg && !averages_before_summing(t))
    postdivide_values(t, out.data(), l.recv_elements, ranks);
  return out;
}

TEST(ReduceCheck, EveryDtypeAndReductionIsExactInAnyOrder) {
  for (const char* name : {"all_reduce", "reduce_scatter"}) {
    const OpSpec& op = find_op(name);
    for (DType t : kAllTypes)
      for (ReduceOp r : kAllOps)
        for (int ranks : {1, 2, 3, 8, 20}) {
          OpParams params;
          params.seed = kSeed;
          params.reduce_op = r;
          const auto in = inputs(op, 203, t, params, ranks);
          std::vector<int> order(ranks), reversed(ranks);
          for (int k = 0; k < ranks; ++k) order[k] = k, reversed[k] = ranks - 1 - k;
          for (int rank : {0, ranks - 1}) {
            const OpLayout l = op.layout(203, ranks, rank, params);
            for (const auto& o : {order, reversed}) {
              auto out = reduce_on_host(op, l, t, r, in, o);
              ASSERT_EQ(count_wrong(op, l, Placement::out_of_place, t, kSeed, out.data()), 0u)
                  << what(op, t, r, ranks);
              store_exact(t, out.data(), 7, poison_value(t));
              EXPECT_EQ(count_wrong(op, l, Placement::out_of_place, t, kSeed, out.data()), 1u)
                  << what(op, t, r, ranks);
            }
          }
        }
  }
}

// What the check's values hold: each input is stored exactly, moved data is the plain fill
// (v + 2 on unsigned types), and the device kernels' plain pattern is used only where it holds.
TEST(ReduceCheck, InputsAreExactAndThePlainPatternIsTheFill) {
  for (DType t : kAllTypes)
    for (int ranks : {2, 9, 200})
      for (std::uint64_t i = 0; i < 300; ++i) {
        unsigned char cell[8];
        for (ReduceOp r : kAllOps) {
          const double v = check_input(t, r, kSeed, ranks - 1, ranks, i);
          store_exact(t, cell, 0, v);
          ASSERT_EQ(load_exact(t, cell, 0), v) << dtype_name(t) << " " << reduce_op_name(r);
        }
        const double moved = check_input(t, std::nullopt, kSeed, 1, ranks, i);
        EXPECT_GE(moved, dtype_is_unsigned(t) ? 0 : -2);
        EXPECT_LE(moved, dtype_is_unsigned(t) ? 4 : 2);
      }
  EXPECT_TRUE(plain_fill_check(DType::bf16, ReduceOp::sum, 128));
  EXPECT_FALSE(plain_fill_check(DType::bf16, ReduceOp::sum, 129));  // sums would leave bf16's
  EXPECT_FALSE(plain_fill_check(DType::f32, ReduceOp::max, 2));
  EXPECT_FALSE(plain_fill_check(DType::u8, std::nullopt, 2));
  EXPECT_TRUE(plain_fill_check(DType::fp8, std::nullopt, 64));
}

TEST(HostReduce, IntegersWrapAndAvgFollowsNccl) {
  std::int8_t a[] = {100, -100, 7, -7};
  const std::int8_t b[] = {100, -100, 0, 0};
  const void* ins[] = {b};
  reduce_values(DType::i8, ReduceOp::sum, a, a, ins, 4);
  EXPECT_EQ(a[0], -56);  // 200 wraps, as the GPU's int8 add
  EXPECT_EQ(a[1], 56);
  postdivide_values(DType::i8, a, 4, 2);
  EXPECT_EQ(a[2], 3);   // 7 / 2 truncates
  EXPECT_EQ(a[3], -3);  // toward zero
  std::uint32_t p[] = {0x10000u, 3};
  const std::uint32_t q[] = {0x10000u, 5};
  const void* qs[] = {q};
  reduce_values(DType::u32, ReduceOp::prod, p, p, qs, 2);
  EXPECT_EQ(p[0], 0u);  // 2^32 wraps to 0
  EXPECT_EQ(p[1], 15u);
  // fp16's 1/3 is 0x3555 (0.333251953125); 1 x that is exact, 2 x it too.
  EXPECT_EQ(average_factor(DType::f16, 3), 0.333251953125);
  std::uint16_t h[] = {float_to_fp16(1.0f), float_to_fp16(-2.0f)};
  premultiply_values(DType::f16, h, 2, 3);
  EXPECT_EQ(fp16_to_float(h[0]), 0.333251953125f);
  EXPECT_EQ(fp16_to_float(h[1]), -0.66650390625f);
  EXPECT_EQ(average_factor(DType::f64, 3), 1.0 / 3);
  double m[] = {1, -4};
  const double n[] = {-2, 3};
  const void* ns[] = {n};
  reduce_values(DType::f64, ReduceOp::min, m, m, ns, 2);
  EXPECT_EQ(m[0], -2);
  EXPECT_EQ(m[1], -4);
}

// The nearest code by search over all 256 (ties to the even code), for the direct codec.
std::uint8_t nearest_code(float value, float (*decode)(std::uint8_t), double max_finite) {
  const double magnitude = std::min<double>(std::fabs(value), max_finite);
  std::uint8_t best = 0;
  for (int code = 1; code < 0x80; ++code) {
    const float here = decode(static_cast<std::uint8_t>(code));
    if (!std::isfinite(here)) continue;
    const double d = std::fabs(here - magnitude), e = std::fabs(decode(best) - magnitude);
    if (d < e || (d == e && (code & 1) == 0)) best = static_cast<std::uint8_t>(code);
  }
  return static_cast<std::uint8_t>((std::signbit(value) ? 0x80 : 0) | best);
}

TEST(Fp8Codecs, DirectRoundingMatchesTheNearestCode) {
  for (int i = -4000; i <= 4000; ++i)  // subnormals, ties, saturation
    for (float x : {std::ldexp(static_cast<float>(i), -13), std::ldexp(static_cast<float>(i), -6),
                    std::ldexp(static_cast<float>(i), 2) * 3.7f}) {
      ASSERT_EQ(float_to_fp8(x), nearest_code(x, fp8_to_float, 448)) << x;
      ASSERT_EQ(float_to_fp8_e5m2(x), nearest_code(x, fp8_e5m2_to_float, 57344)) << x;
    }
  EXPECT_EQ(float_to_fp8_e5m2(1.0f), 0x3c);
  EXPECT_EQ(float_to_fp8_e5m2(-2.0f), 0xc0);
  EXPECT_EQ(float_to_fp8_e5m2(1e6f), 0x7b);                   // saturates at 57344
  EXPECT_EQ(float_to_fp8_e5m2(std::ldexp(1.0f, -16)), 0x01);  // smallest subnormal
  EXPECT_TRUE(std::isinf(fp8_e5m2_to_float(0x7c)));
  EXPECT_TRUE(std::isnan(fp8_e5m2_to_float(0x7f)));
  for (int code = 0; code < 256; ++code) {  // every finite code round-trips
    const float e4 = fp8_to_float(static_cast<std::uint8_t>(code));
    const float e5 = fp8_e5m2_to_float(static_cast<std::uint8_t>(code));
    if (std::isfinite(e4) && e4 != 0) {
      EXPECT_EQ(float_to_fp8(e4), code);
    }
    if (std::isfinite(e5) && e5 != 0) {
      EXPECT_EQ(float_to_fp8_e5m2(e5), code);
    }
  }
}

}  // namespace
}  // namespace collreplay
