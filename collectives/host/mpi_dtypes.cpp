#include "collectives/host/mpi_dtypes.hpp"

#include <climits>
#include <string>

#include "collectives/mpi/mpi_check.hpp"
#include "collectives/values/host_values.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

bool mpi_alive() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

// Elements in `items` items of `type`: a block type holds several elements.
std::size_t element_count(int items, MPI_Datatype* type, DType t) {
  int item_bytes = 0;
  MPI_Type_size(*type, &item_bytes);
  return static_cast<std::size_t>(items) * static_cast<std::size_t>(item_bytes) /
         dtype_size_bytes(t);
}

template <DType T>
void sum_in_float(void* in, void* inout, int* items, MPI_Datatype* type) {
  add_values(T, inout, in, element_count(*items, type, T));
}

}  // namespace

MPI_Datatype mpi_element_type(DType t) {
  return t == DType::f32 ? MPI_FLOAT : t == DType::fp8 ? MPI_UINT8_T : MPI_UINT16_T;
}

MpiTypeCache::~MpiTypeCache() {
  if (!mpi_alive()) return;
  for (auto& [key, type] : blocks_) MPI_Type_free(&type);
  for (auto& [key, op] : sums_) MPI_Op_free(&op);
}

MpiSpan MpiTypeCache::span(DType t, std::size_t elements) {
  constexpr std::size_t kMaxCount = INT_MAX;
  if (elements <= kMaxCount) return {mpi_element_type(t), static_cast<int>(elements)};
  // Smallest block size that divides the buffer and brings the count under INT_MAX; the sizes
  // users sweep (powers of two, model shards) find one within the first few candidates.
  const std::size_t first = (elements + kMaxCount - 1) / kMaxCount;
  for (std::size_t block = first; block < first + (std::size_t{1} << 20); ++block) {
    if (elements % block != 0) continue;
    auto [it, inserted] = blocks_.try_emplace({t, block}, MPI_DATATYPE_NULL);
    if (inserted) {
      MPI_CHECK(MPI_Type_contiguous(static_cast<int>(block), mpi_element_type(t), &it->second));
      MPI_CHECK(MPI_Type_commit(&it->second));
    }
    return {it->second, static_cast<int>(elements / block)};
  }
  throw UsageError("a buffer of " + std::to_string(elements) + " " + std::string(dtype_name(t)) +
                   " elements cannot be described to MPI (no block size divides it)");
}

MPI_Op MpiTypeCache::sum_op(DType t, MPI_Datatype type) {
  if (t == DType::f32 && type == MPI_FLOAT) return MPI_SUM;
  if (t == DType::fp8) throw UsageError("fp8 data is moved, never reduced");
  auto [it, inserted] = sums_.try_emplace(t, MPI_OP_NULL);
  if (inserted) {
    MPI_User_function* fn = t == DType::bf16  ? &sum_in_float<DType::bf16>
                            : t == DType::f16 ? &sum_in_float<DType::f16>
                                              : &sum_in_float<DType::f32>;
    MPI_CHECK(MPI_Op_create(fn, /*commute=*/1, &it->second));
  }
  return it->second;
}

}  // namespace collreplay
