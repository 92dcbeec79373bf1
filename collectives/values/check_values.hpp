// The values every data check (-c) relies on, for each collective dtype and reduction, exact for
// any number of ranks, so a check demands equality, never a tolerance. From the seeded small
// integers of fill_pattern.hpp (v in [-2, 2]; v + 2 on unsigned types):
//   moving data (all_gather, all_to_all, broadcast, ...), min and max: every rank's v;
//   sum (and avg on integers): v from the ranks r with (index + r) % K == 0, 0 from the rest, K
//     the fewest groups that keep every partial sum inside the integers the type holds exactly
//     (K = 1, every rank, up to 128 ranks in bf16, 8 in fp8 e4m3, 4 in e5m2, 63 in int8);
//   avg on floating point: v from one rank (K = ranks), 0 from the rest, so the result is that
//     v times 1/ranks as the type rounds it (NCCL's PreMulSum), whatever the order;
//   prod: +-1 (the sign of v) from every rank but rank index % ranks, which gives v (1 for 0):
//     products stay in {+-1, +-2} (unsigned: the one rank's v + 2, 1 elsewhere).
#pragma once
#include <cstdint>
#include <optional>

#include "collectives/reduce_op.hpp"
#include "common/dtype.hpp"

namespace collreplay {

// Written everywhere outside the input, so untouched output is caught: kPoisonValue where the
// type holds it (far from any expected value), else a value of the type no check expects.
inline constexpr int kPoisonValue = 1000;
double poison_value(DType t);

// Input element `index` of `rank` (of `ranks`) for an op that reduces with `op` (nullopt: an op
// that only moves data).
double check_input(DType t, std::optional<ReduceOp> op, std::uint64_t seed, int rank, int ranks,
                   std::uint64_t index);

// What every rank's check_input reduces to at element `index`, as the GPU computes it.
double check_reduced(DType t, ReduceOp op, std::uint64_t seed, int ranks, std::uint64_t index);

// True when the inputs are fill_value itself and the result a plain copy or sum of them: the
// checks the device kernels (collectives/device/device_pattern.hpp) run.
bool plain_fill_check(DType t, std::optional<ReduceOp> op, int ranks);

}  // namespace collreplay
