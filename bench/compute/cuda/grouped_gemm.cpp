#include "bench/compute/cuda/grouped_gemm.hpp"

#include <string>

#include "bench/compute/cuda/cublas_check.hpp"
#include "bench/compute/cuda/cuda_data_type.hpp"
#include "collectives/device/cuda_check.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {


// As lt_gemm.cpp: fp32 accumulation (TF32 tensor cores for fp32 operands).
cublasComputeType_t compute_type(DType t) {
  return t == DType::f32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

const char* byte_ptr(const void* p) { return static_cast<const char*>(p); }

}  // namespace

// One call's arrays: the host ones cuBLAS reads (sizes, leading dimensions, scalars) and the
// device arrays of operand pointers it requires, built once per shape and buffer set.
struct GroupedGemm::Plan {
  std::vector<cublasOperation_t> trans_a, trans_b;
  std::vector<int> m, n, k, lda, ldb, ldc, group_size;
  std::vector<float> alpha, beta;
  std::vector<const void*> a_host, b_host;
  std::vector<void*> c_host;
  const void** a_dev = nullptr;
  const void** b_dev = nullptr;
  void** c_dev = nullptr;
  ~Plan() {
    cudaFree(a_dev);
    cudaFree(b_dev);
    cudaFree(c_dev);
  }
};

GroupedGemm::GroupedGemm(cudaStream_t stream, LtGemm& lt, DType probe_dtype,
                         GroupedGemmPath path, int sm_major)
    : stream_(stream), lt_(lt), kind_(path), sm_major_(sm_major) {
  CUBLAS_CHECK(cublasCreate(&handle_));
  CUBLAS_CHECK(cublasSetStream(handle_, stream_));
  if (path == GroupedGemmPath::loop) {
    path_ = "a loop of cuBLASLt GEMMs, one per group (asked for)";
    return;
  }
  if (path == GroupedGemmPath::torch) {
    const bool kernel = sm_major == 9 || sm_major == 10;
    path_ = kernel ? "as torch on sm " + std::to_string(sm_major) +
                         ".x: its grouped kernel's tiles as one batched cuBLASLt GEMM over the "
                         "experts' weights (bf16; other dtypes a GEMM per group)"
                   : "as torch on sm " + std::to_string(sm_major) +
                         ".x: a loop of cuBLASLt GEMMs, one per group (torch has no grouped "
                         "kernel there)";
    return;
  }
  // Probe: two 64 x 64 x 64 problems in the engine's dtype. cuBLAS documents which type
  // combinations the grouped call takes; asking it is the only answer that holds for the
  // library actually loaded.
  const std::size_t elems = 2 * 64 * 64, bytes = elems * dtype_size_bytes(probe_dtype);
  void *a = nullptr, *b = nullptr, *c = nullptr;
  CUDA_CHECK(cudaMalloc(&a, bytes));
  CUDA_CHECK(cudaMalloc(&b, bytes));
  CUDA_CHECK(cudaMalloc(&c, bytes));
  CUDA_CHECK(cudaMemsetAsync(a, 0, bytes, stream_));
  CUDA_CHECK(cudaMemsetAsync(b, 0, bytes, stream_));
  GemmShape probe;
  probe.m = 64;
  probe.n = 64;
  probe.k = 64;
  probe.batch = 2;
  probe.group_rows = {64, 64};
  grouped_call_ = true;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  try {
    Plan& p = plan_for(probe, probe_dtype, a, b, c);
    status = cublasGemmGroupedBatchedEx(
        handle_, p.trans_a.data(), p.trans_b.data(), p.m.data(), p.n.data(), p.k.data(),
        p.alpha.data(), p.a_dev, cuda_data_type(probe_dtype), p.lda.data(), p.b_dev,
        cuda_data_type(probe_dtype), p.ldb.data(), p.beta.data(), p.c_dev, cuda_data_type(probe_dtype),
        p.ldc.data(), static_cast<int>(p.group_size.size()), p.group_size.data(),
        compute_type(probe_dtype));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  } catch (...) {
    plans_.clear();
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    throw;
  }
  plans_.clear();
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  grouped_call_ = status == CUBLAS_STATUS_SUCCESS;
  path_ = grouped_call_ ? "cublasGemmGroupedBatchedEx"
                        : std::string("a loop of cuBLASLt GEMMs, one per group (this cuBLAS "
                                      "answers cublasGemmGroupedBatchedEx with ") +
                              cublasGetStatusString(status) + " for " +
                              std::string(dtype_name(probe_dtype)) + ")";
}

GroupedGemm::~GroupedGemm() {
  cudaStreamSynchronize(stream_);
  plans_.clear();
  if (handle_) cublasDestroy(handle_);
}

void GroupedGemm::forget_plans() {
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  plans_.clear();
}

// Row-major C = A B is column-major C^T = B^T A^T (lt_gemm.hpp): cuBLAS's first operand is B
// (ld n), its second A (ld k, or A stored [k x m] read transposed with ld m). Groups split M:
// A's and C's rows are packed by group, B holds one [k x n] matrix per group (the expert's
// weight). Groups split K (dW_g = dY_g^T X_g): A and B are packed by group, C one [m x n] each.
GroupedGemm::Plan& GroupedGemm::plan_for(const GemmShape& g, DType t, const void* a,
                                         const void* b, void* c) {
  Key key{g.group_rows, g.group_k, g.m, g.n, g.k, static_cast<int>(t), a, b, c};
  auto it = plans_.find(key);
  if (it != plans_.end()) return *it->second;
  auto plan = std::make_unique<Plan>();
  const std::int64_t e = static_cast<std::int64_t>(dtype_size_bytes(t));
  std::int64_t offset_rows = 0;
  for (std::size_t i = 0; i < g.group_rows.size(); ++i) {
    const std::int64_t rows = g.group_rows[i];
    const auto group = static_cast<std::int64_t>(i);
    if (rows > 0) {  // torch's empty groups launch nothing
      const std::int64_t m = g.group_k ? g.m : rows, k = g.group_k ? rows : g.k;
      plan->trans_a.push_back(CUBLAS_OP_N);
      plan->trans_b.push_back(g.a_transposed ? CUBLAS_OP_T : CUBLAS_OP_N);
      plan->m.push_back(static_cast<int>(g.n));
      plan->n.push_back(static_cast<int>(m));
      plan->k.push_back(static_cast<int>(k));
      plan->lda.push_back(static_cast<int>(g.n));
      plan->ldb.push_back(static_cast<int>(g.a_transposed ? m : k));
      plan->ldc.push_back(static_cast<int>(g.n));
      plan->alpha.push_back(1.0f);
      plan->beta.push_back(0.0f);
      plan->group_size.push_back(1);
      if (g.group_k) {
        plan->a_host.push_back(byte_ptr(a) + offset_rows * g.m * e);
        plan->b_host.push_back(byte_ptr(b) + offset_rows * g.n * e);
        plan->c_host.push_back(static_cast<char*>(c) + group * g.m * g.n * e);
      } else {
        plan->a_host.push_back(byte_ptr(a) + offset_rows * g.k * e);
        plan->b_host.push_back(byte_ptr(b) + group * g.k * g.n * e);
        plan->c_host.push_back(static_cast<char*>(c) + offset_rows * g.n * e);
      }
    }
    offset_rows += rows;
  }
  const std::size_t count = plan->a_host.size(), bytes = count * sizeof(void*);
  if (count > 0) {
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&plan->a_dev), bytes));
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&plan->b_dev), bytes));
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&plan->c_dev), bytes));
    // cuBLAS's first operand is B (see above): the device arrays hold B's pointers first.
    CUDA_CHECK(cudaMemcpyAsync(plan->a_dev, plan->b_host.data(), bytes, cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaMemcpyAsync(plan->b_dev, plan->a_host.data(), bytes, cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaMemcpyAsync(plan->c_dev, plan->c_host.data(), bytes, cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host arrays are copied before any reuse
  }
  return *plans_.emplace(key, std::move(plan)).first->second;
}

std::optional<GemmShape> GroupedGemm::one_gemm(const GemmShape& g, DType t) const {
  if (kind_ != GroupedGemmPath::torch || g.group_rows.empty()) return std::nullopt;
  const std::optional<GroupedMmTile> tile = torch_grouped_mm_tile(g, t, sm_major_);
  if (!tile) return std::nullopt;
  return grouped_tiles_as_one_gemm(g, *tile);
}

void GroupedGemm::run(const GemmShape& g, DType t, const void* a, const void* b, void* c) {
  if (const std::optional<GemmShape> one = one_gemm(g, t)) {
    if (one->m > 0 && one->k > 0 && one->batch > 0) lt_.run(dims_of(*one), t, a, b, c);
    return;
  }
  if (!grouped_call_) {
    run_loop(g, t, a, b, c);
    return;
  }
  Plan& p = plan_for(g, t, a, b, c);
  if (p.group_size.empty()) return;
  CUBLAS_CHECK(cublasGemmGroupedBatchedEx(
      handle_, p.trans_a.data(), p.trans_b.data(), p.m.data(), p.n.data(), p.k.data(),
      p.alpha.data(), p.a_dev, cuda_data_type(t), p.lda.data(), p.b_dev, cuda_data_type(t), p.ldb.data(),
      p.beta.data(), p.c_dev, cuda_data_type(t), p.ldc.data(), static_cast<int>(p.group_size.size()),
      p.group_size.data(), compute_type(t)));
}

void GroupedGemm::run_loop(const GemmShape& g, DType t, const void* a, const void* b, void* c) {
  const std::int64_t e = static_cast<std::int64_t>(dtype_size_bytes(t));
  std::int64_t offset_rows = 0;
  for (std::size_t i = 0; i < g.group_rows.size(); ++i) {
    const std::int64_t rows = g.group_rows[i];
    const auto group = static_cast<std::int64_t>(i);
    if (rows > 0) {
      GemmDims d{g.group_k ? g.m : rows, g.n, g.group_k ? rows : g.k, 1, g.a_transposed};
      if (g.group_k)
        lt_.run(d, t, byte_ptr(a) + offset_rows * g.m * e, byte_ptr(b) + offset_rows * g.n * e,
                static_cast<char*>(c) + group * g.m * g.n * e);
      else
        lt_.run(d, t, byte_ptr(a) + offset_rows * g.k * e, byte_ptr(b) + group * g.k * g.n * e,
                static_cast<char*>(c) + offset_rows * g.n * e);
    }
    offset_rows += rows;
  }
}

}  // namespace collreplay
