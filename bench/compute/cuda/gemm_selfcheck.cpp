#include "bench/compute/gemm/gemm_selfcheck.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "bench/compute/cuda/grouped_gemm.hpp"
#include "bench/compute/cuda/lt_gemm.hpp"
#include "bench/compute/cuda/random_fill.hpp"
#include "collectives/device/cuda_check.hpp"

namespace collreplay {
namespace {

std::vector<double> to_host_doubles(const void* device_buf, std::size_t count, DType t) {
  std::vector<unsigned char> raw(count * dtype_size_bytes(t));
  CUDA_CHECK(cudaMemcpy(raw.data(), device_buf, raw.size(), cudaMemcpyDeviceToHost));
  std::vector<double> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    const unsigned char* p = raw.data() + i * dtype_size_bytes(t);
    if (t == DType::bf16) {
      __nv_bfloat16 v;
      std::memcpy(&v, p, sizeof v);
      out[i] = __bfloat162float(v);
    } else if (t == DType::f16) {
      __half v;
      std::memcpy(&v, p, sizeof v);
      out[i] = __half2float(v);
    } else {
      float v;
      std::memcpy(&v, p, sizeof v);
      out[i] = v;
    }
  }
  return out;
}

// Owns one device allocation.
struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { CUDA_CHECK(cudaMalloc(&ptr, bytes)); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// The fp64 product of a grouped GEMM's groups, packed as GroupedGemm packs them; C starts zero,
// so an empty group's output must stay zero.
void check_groups(const GemmShape& s, const std::vector<double>& ha, const std::vector<double>& hb,
                  const std::vector<double>& hc, GemmCheckResult& result) {
  const auto n = static_cast<std::size_t>(s.n);
  std::size_t offset = 0;
  for (std::size_t g = 0; g < s.group_rows.size(); ++g) {
    const auto rows = static_cast<std::size_t>(s.group_rows[g]);
    const std::size_t m = s.group_k ? static_cast<std::size_t>(s.m) : rows;
    const std::size_t k = s.group_k ? rows : static_cast<std::size_t>(s.k);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double sum = 0;
        for (std::size_t q = 0; q < k; ++q)
          sum += s.group_k ? ha[(offset + q) * m + i] * hb[(offset + q) * n + j]
                           : ha[(offset + i) * k + q] * hb[g * k * n + q * n + j];
        const double got = s.group_k ? hc[g * m * n + i * n + j] : hc[(offset + i) * n + j];
        result.max_abs_reference = std::max(result.max_abs_reference, std::fabs(sum));
        result.max_abs_error = std::max(result.max_abs_error, std::fabs(got - sum));
      }
    offset += rows;
  }
}

}  // namespace

GemmCheckResult check_cublas_gemm(int device, const GemmShape& s, DType t) {
  CUDA_CHECK(cudaSetDevice(device));
  const std::size_t m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n),
                    k = static_cast<std::size_t>(s.k), batch = static_cast<std::size_t>(s.batch);
  const std::size_t elt = dtype_size_bytes(t);
  DeviceBuffer a(m * k * batch * elt), b(k * n * batch * elt), c(m * n * batch * elt);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  GemmCheckResult result;
  {
    LtGemm gemm(device, stream);
    device_fill_random(a.ptr, m * k * batch, t, 11, stream);
    device_fill_random(b.ptr, k * n * batch, t, 12, stream);
    CUDA_CHECK(cudaMemsetAsync(c.ptr, 0, m * n * batch * elt, stream));
    if (s.group_rows.empty()) {
      gemm.run(dims_of(s), t, a.ptr, b.ptr, c.ptr);
    } else {
      // The cuBLAS grouped call (or its loop): the paths that compute each group's own product.
      GroupedGemm grouped(stream, gemm, t, GroupedGemmPath::cublas_grouped, 0);
      grouped.run(s, t, a.ptr, b.ptr, c.ptr);
      result.grouped_path = grouped.path();
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  cudaStreamDestroy(stream);
  const std::vector<double> ha = to_host_doubles(a.ptr, m * k * batch, t);
  const std::vector<double> hb = to_host_doubles(b.ptr, k * n * batch, t);
  const std::vector<double> hc = to_host_doubles(c.ptr, m * n * batch, t);
  if (!s.group_rows.empty()) {
    check_groups(s, ha, hb, hc, result);
    return result;
  }
  for (std::size_t p = 0; p < batch; ++p)
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double sum = 0;
        for (std::size_t q = 0; q < k; ++q)
          sum += ha[p * m * k + (s.a_transposed ? q * m + i : i * k + q)] *
                 hb[p * k * n + q * n + j];
        result.max_abs_reference = std::max(result.max_abs_reference, std::fabs(sum));
        result.max_abs_error =
            std::max(result.max_abs_error, std::fabs(hc[p * m * n + i * n + j] - sum));
      }
  return result;
}

}  // namespace collreplay
