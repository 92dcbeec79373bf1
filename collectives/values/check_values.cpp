#include "collectives/values/check_values.hpp"

#include <cmath>

#include "collectives/values/fill_pattern.hpp"
#include "collectives/values/host_reduce.hpp"
#include "collectives/values/host_values.hpp"

namespace collreplay {
namespace {

// The largest L with every integer in [-L, L] ([0, L] unsigned) held exactly (the checks compare
// in double, so 64-bit integers count up to 2^53).
double exact_integer_limit(DType t) {
  switch (t) {
    case DType::bf16: return 256;
    case DType::f16: return 2048;
    case DType::f32: return 16777216;
    case DType::fp8: return 16;
    case DType::fp8_e5m2: return 8;
    case DType::i8: return 127;
    case DType::u8: return 255;
    case DType::i32: return 2147483647.0;
    case DType::u32: return 4294967295.0;
    case DType::f64:
    case DType::i64:
    case DType::u64: return 9007199254740992.0;
  }
  return 16;
}

double largest_input(DType t) { return dtype_is_unsigned(t) ? 4 : 2; }

// Ranks r with (index + r) % groups == 0 contribute to a sum (see the header).
int sum_groups(DType t, std::optional<ReduceOp> op, int ranks) {
  if (op == ReduceOp::avg && !dtype_is_integer(t)) return ranks;
  if (op != ReduceOp::sum && op != ReduceOp::avg) return 1;
  const double contributors = std::max(1.0, std::floor(exact_integer_limit(t) / largest_input(t)));
  return static_cast<int>(std::ceil(ranks / contributors));
}

double base_value(DType t, std::uint64_t seed, int rank, std::uint64_t index) {
  const int v = fill_value(seed, rank, index);
  return dtype_is_unsigned(t) ? v + 2 : v;
}

// `value` as `t` holds it (round to nearest even for floats).
double rounded_to(DType t, double value) {
  unsigned char cell[8];
  store_exact(t, cell, 0, value);
  return load_exact(t, cell, 0);
}

}  // namespace

double poison_value(DType t) {
  switch (t) {
    case DType::fp8: return 448;        // the largest finite e4m3
    case DType::fp8_e5m2: return 1024;  // 1000 is not an e5m2 value
    case DType::i8: return 127;         // sums stop at 126 (63 contributors of 2)
    case DType::u8: return 255;         // and at 252 (63 of 4)
    default: return kPoisonValue;
  }
}

double check_input(DType t, std::optional<ReduceOp> op, std::uint64_t seed, int rank, int ranks,
                   std::uint64_t index) {
  const double v = base_value(t, seed, rank, index);
  if (op == ReduceOp::prod) {
    const bool chosen =
        static_cast<std::uint64_t>(rank) == index % static_cast<std::uint64_t>(ranks);
    if (dtype_is_unsigned(t)) return chosen ? v : 1;
    if (chosen) return v == 0 ? 1 : v;
    return v < 0 ? -1 : 1;
  }
  const auto groups = static_cast<std::uint64_t>(sum_groups(t, op, ranks));
  if (groups > 1 && (index + static_cast<std::uint64_t>(rank)) % groups != 0) return 0;
  return v;
}

double check_reduced(DType t, ReduceOp op, std::uint64_t seed, int ranks, std::uint64_t index) {
  double result = check_input(t, op, seed, 0, ranks, index);
  for (int r = 1; r < ranks; ++r) {
    const double x = check_input(t, op, seed, r, ranks, index);
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::avg: result += x; break;
      case ReduceOp::prod: result *= x; break;
      case ReduceOp::min: result = std::min(result, x); break;
      case ReduceOp::max: result = std::max(result, x); break;
    }
  }
  if (op != ReduceOp::avg) return result;
  if (dtype_is_integer(t)) return std::trunc(result / ranks);
  // One rank's v, the others' 0: v x factor, rounded once to the type as the GPU's multiply does.
  return rounded_to(t, result * average_factor(t, ranks));
}

bool plain_fill_check(DType t, std::optional<ReduceOp> op, int ranks) {
  if (dtype_is_unsigned(t)) return false;
  return !op || (op == ReduceOp::sum && sum_groups(t, op, ranks) == 1);
}

}  // namespace collreplay
