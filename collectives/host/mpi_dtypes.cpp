#include "collectives/host/mpi_dtypes.hpp"

#include <climits>
#include <optional>
#include <string>

#include "collectives/mpi/mpi_check.hpp"
#include "collectives/values/host_reduce.hpp"
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

template <DType T, ReduceOp Op>
void reduce_items(void* in, void* inout, int* items, MPI_Datatype* type) {
  const void* ins[] = {in};
  reduce_values(T, Op, inout, inout, ins, element_count(*items, type, T));
}

template <DType T>
MPI_User_function* reduce_function(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return &reduce_items<T, ReduceOp::sum>;
    case ReduceOp::prod: return &reduce_items<T, ReduceOp::prod>;
    case ReduceOp::min: return &reduce_items<T, ReduceOp::min>;
    case ReduceOp::max: return &reduce_items<T, ReduceOp::max>;
    case ReduceOp::avg: break;
  }
  throw UsageError("-o avg: MPI has no average op (the host backend's host buffers average as "
                   "NCCL does)");
}

MPI_User_function* reduce_function(DType t, ReduceOp op) {
  switch (t) {
    case DType::bf16: return reduce_function<DType::bf16>(op);
    case DType::f16: return reduce_function<DType::f16>(op);
    case DType::f32: return reduce_function<DType::f32>(op);
    case DType::fp8: return reduce_function<DType::fp8>(op);
    case DType::fp8_e5m2: return reduce_function<DType::fp8_e5m2>(op);
    case DType::f64: return reduce_function<DType::f64>(op);
    case DType::i8: return reduce_function<DType::i8>(op);
    case DType::u8: return reduce_function<DType::u8>(op);
    case DType::i32: return reduce_function<DType::i32>(op);
    case DType::u32: return reduce_function<DType::u32>(op);
    case DType::i64: return reduce_function<DType::i64>(op);
    case DType::u64: return reduce_function<DType::u64>(op);
  }
  throw RuntimeError("reduce_function: unknown dtype");
}

// MPI's own op where MPI knows the type (not bf16, fp16 or fp8, which travel as raw words).
std::optional<MPI_Op> predefined_op(DType t, ReduceOp op) {
  if (t == DType::bf16 || t == DType::f16 || t == DType::fp8 || t == DType::fp8_e5m2)
    return std::nullopt;
  switch (op) {
    case ReduceOp::sum: return MPI_SUM;
    case ReduceOp::prod: return MPI_PROD;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
    case ReduceOp::avg: break;
  }
  return std::nullopt;
}

}  // namespace

MPI_Datatype mpi_element_type(DType t) {
  switch (t) {
    case DType::f32: return MPI_FLOAT;
    case DType::f64: return MPI_DOUBLE;
    case DType::i8: return MPI_INT8_T;
    case DType::u8: return MPI_UINT8_T;
    case DType::i32: return MPI_INT32_T;
    case DType::u32: return MPI_UINT32_T;
    case DType::i64: return MPI_INT64_T;
    case DType::u64: return MPI_UINT64_T;
    case DType::fp8:
    case DType::fp8_e5m2: return MPI_UINT8_T;
    case DType::bf16:
    case DType::f16: return MPI_UINT16_T;
  }
  return MPI_BYTE;
}

MpiTypeCache::~MpiTypeCache() {
  if (!mpi_alive()) return;
  for (auto& [key, type] : blocks_) MPI_Type_free(&type);
  for (auto& [key, op] : ops_) MPI_Op_free(&op);
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

MPI_Op MpiTypeCache::reduce_op(DType t, ReduceOp op, MPI_Datatype type) {
  if (const std::optional<MPI_Op> own = predefined_op(t, op); own && type == mpi_element_type(t))
    return *own;
  MPI_User_function* fn = reduce_function(t, op);  // UsageError for avg
  auto [it, inserted] = ops_.try_emplace({t, op}, MPI_OP_NULL);
  if (inserted) MPI_CHECK(MPI_Op_create(fn, /*commute=*/1, &it->second));
  return it->second;
}

}  // namespace collreplay
