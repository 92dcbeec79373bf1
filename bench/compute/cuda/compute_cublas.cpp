// The GPU compute engine: a schedule's GEMM slices as cuBLASLt GEMMs and its non-GEMM kernels
// as real memory-bound kernels (memory_kernels.hpp), in launch order on the engine's own
// non-blocking stream. Operands are allocated once, by reserve() and reserve_kernels(), filled
// with random values, and every launch reuses them (the replay needs the work's time, power and
// memory traffic, not its results).
//
// Host time: each launch starts no sooner than its share of the op's host time after the
// previous launch started, as eager PyTorch's thread is busy in Python and the dispatcher
// between launches; a GPU that runs ahead then waits, as it does in training. The engine's own
// launch cost counts towards that share (PyTorch's per-launch time includes its own). A sync
// kernel waits for the stream to drain, and the host time after it runs from its return
// (host_pacer.hpp).
//
// Calibration (`scale`) stretches an op's GEMMs as compute_scale.hpp says; shapes made by the
// fraction are planned on first use (heuristic, untuned).
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "bench/compute/compute_cublas.hpp"
#include "bench/compute/compute_scale.hpp"
#include "bench/compute/cuda/grouped_gemm.hpp"
#include "bench/compute/cuda/lt_gemm.hpp"
#include "bench/compute/cuda/memory_kernels.hpp"
#include "bench/compute/cuda/random_fill.hpp"
#include "bench/compute/host_pacer.hpp"
#include "bench/compute/launch_order.hpp"
#include "bench/compute/operand_bytes.hpp"
#include "collectives/device/cuda_check.hpp"
#include "collectives/device/cuda_event.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"

namespace collreplay {
namespace {

std::uint64_t elements(std::int64_t rows, std::int64_t cols, std::int64_t batch) {
  return checked_mul(checked_mul(static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols),
                                 "GEMM operand size"),
                     static_cast<std::uint64_t>(batch), "GEMM operand size");
}

class CublasEngine final : public ComputeEngine {
 public:
  CublasEngine(int device, GroupedGemmPath grouped) : device_(device) {
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    gemm_ = std::make_unique<LtGemm>(device_, stream_);
    grouped_ = std::make_unique<GroupedGemm>(stream_, *gemm_, dtype_, grouped, prop.major);
    device_name_ = prop.name;
    kernel_buffers_.sm_count = prop.multiProcessorCount;
  }

  ~CublasEngine() override {
    cudaStreamSynchronize(stream_);
    grouped_.reset();
    gemm_.reset();
    release_operands();
    cudaFree(const_cast<void*>(kernel_buffers_.src));
    cudaFree(kernel_buffers_.dst);
    cudaStreamDestroy(stream_);
  }

  std::string description() const override {
    return "cuBLASLt " + std::string(dtype_name(dtype_)) + " GEMM, fp32 accumulate, on " +
           device_name_ + " (GPU " + std::to_string(device_) +
           "); grouped GEMMs: " + grouped_->path();
  }

  bool enqueues_on_device() const override { return true; }
  std::string device_name() const override { return device_name_; }

  std::uint64_t reserve(const std::vector<GemmShape>& shapes, DType dtype) override {
    std::uint64_t a = a_elements_, b = b_elements_, c = c_elements_;
    std::vector<GemmShape> plain;  // what cuBLASLt runs and is tuned for
    for (const GemmShape& s : shapes) {
      if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.batch <= 0)
        throw UsageError("GEMM '" + s.label + "' has a non-positive dimension");
      std::vector<GemmShape> runs{s};
      if (s.group_rows.empty())
        plain.push_back(s);
      else if (std::optional<GemmShape> one = grouped_->one_gemm(s, dtype)) {
        runs.push_back(*one);
        if (one->m > 0 && one->k > 0 && one->batch > 0) plain.push_back(*one);
      }
      for (const GemmShape& r : runs) {
        a = std::max(a, elements(r.m, r.k, r.batch));
        b = std::max(b, elements(r.k, r.n, r.batch));
        c = std::max(c, elements(r.m, r.n, r.batch));
      }
    }
    const std::uint64_t element_bytes = dtype_size_bytes(dtype);
    // A new dtype refills the operands: random bits of one type can be NaNs in another.
    if (a != a_elements_ || b != b_elements_ || c != c_elements_ || dtype != dtype_ ||
        a_ == nullptr)
      allocate_operands(a, b, c, dtype);
    dtype_ = dtype;
    // A grouped GEMM run group by group is planned on its first launch (warm-up): its groups'
    // shapes are its own.
    for (const GemmShape& s : plain) gemm_->tune(dims_of(s), dtype_, a_, b_, c_);
    static_assert(LtGemm::kWorkspaceBytes == kGpuGemmWorkspaceBytes);
    return (a + b + c) * element_bytes + LtGemm::kWorkspaceBytes;
  }

  std::uint64_t reserve_kernels(std::uint64_t launch_bytes) override {
    const std::uint64_t want = kernel_buffer_each_bytes(launch_bytes, true);
    if (want <= kernel_buffers_.capacity_bytes) return 2 * kernel_buffers_.capacity_bytes;
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    cudaFree(const_cast<void*>(kernel_buffers_.src));
    cudaFree(kernel_buffers_.dst);
    kernel_buffers_.src = kernel_buffers_.dst = nullptr;
    kernel_buffers_.capacity_bytes = 0;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (2 * want > free_bytes)
      throw UsageError("kernel buffers need " + format_bytes(2 * want) + " but GPU " +
                       std::to_string(device_) + " has only " + format_bytes(free_bytes) +
                       " free; replay fewer layers with --layers");
    void *src = nullptr, *dst = nullptr;
    CUDA_CHECK(cudaMalloc(&src, want));
    CUDA_CHECK(cudaMalloc(&dst, want));
    // Random bytes: what the kernels read is not all zeros or repeats, as activations are not.
    device_fill_random(src, want / 2, DType::bf16, 3, stream_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    kernel_buffers_.src = src;
    kernel_buffers_.dst = dst;
    kernel_buffers_.capacity_bytes = want;
    return 2 * want;
  }

  void set_sync_timeout(double seconds) override { sync_timeout_s_ = seconds; }

  void begin_step() override { host_.start(); }

  void issue(const ComputeOp& op, double scale,
             std::span<const std::shared_ptr<StreamEvent>> after) override {
    if (!op.gemms.empty() &&
        (dtype_size_bytes(op.dtype) > dtype_size_bytes(dtype_) || a_ == nullptr))
      throw UsageError("GEMMs issued before reserve() covered their dtype and shapes");
    for (const std::shared_ptr<StreamEvent>& event : after)
      CUDA_CHECK(cudaStreamWaitEvent(stream_, static_cast<cudaEvent_t>(event->native_handle()), 0));
    for (const Launch& l : launch_order(op, scale)) {
      host_.before_launch(l.host_us);
      if (l.is_gemm && !l.gemm.group_rows.empty())
        run_grouped(l.gemm, op.dtype);
      else if (l.is_gemm)
        run(dims_of(l.gemm), op.dtype, l.gemm.label);
      else if (l.kernel.kind == KernelKind::sync) {
        wait_for_stream(l.kernel.label);
        host_.after_sync();
      } else
        launch_memory_kernel(l.kernel, l.share, kernel_buffers_, stream_);
    }
  }

  std::shared_ptr<StreamEvent> record() override {
    return std::make_shared<CudaStreamEvent>(stream_, EventWaitPolicy{}, "GEMM stream event");
  }

  void synchronize() override {
    CudaStreamEvent done(stream_, EventWaitPolicy{}, "GEMM stream");
    done.synchronize();
  }

 private:
  HostPacer host_;
  // The host reads a few bytes back (nonzero, item()): it waits for everything queued.
  void wait_for_stream(const std::string& label) {
    EventWaitPolicy policy;
    policy.timeout_seconds = sync_timeout_s_;
    policy.where = "GPU " + std::to_string(device_);
    CudaStreamEvent drained(stream_, policy, "host sync '" + label + "'");
    drained.synchronize();
  }

  void run(const GemmDims& d, DType t, const std::string& label) {
    if (elements(d.m, d.k, d.batch) > a_elements_ || elements(d.k, d.n, d.batch) > b_elements_ ||
        elements(d.m, d.n, d.batch) > c_elements_)
      throw UsageError("GEMM '" + label + "' is larger than the operands reserve() was given");
    gemm_->run(d, t, a_, b_, c_);
  }

  // The packed groups fit where the mean-row shape fits (GemmShape::group_rows); torch's
  // tiles where their one GEMM does.
  void run_grouped(const GemmShape& g, DType t) {
    const GemmShape fits = grouped_->one_gemm(g, t).value_or(g);
    if (elements(g.m, g.k, g.batch) > a_elements_ || elements(g.k, g.n, g.batch) > b_elements_ ||
        elements(g.m, g.n, g.batch) > c_elements_ ||
        elements(fits.m, fits.k, fits.batch) > a_elements_ ||
        elements(fits.k, fits.n, fits.batch) > b_elements_ ||
        elements(fits.m, fits.n, fits.batch) > c_elements_)
      throw UsageError("GEMM '" + g.label + "' is larger than the operands reserve() was given");
    grouped_->run(g, t, a_, b_, c_);
  }

  void allocate_operands(std::uint64_t a, std::uint64_t b, std::uint64_t c, DType dtype) {
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (grouped_) grouped_->forget_plans();
    release_operands();
    const std::uint64_t element_bytes = dtype_size_bytes(dtype);
    const std::uint64_t needed = (a + b + c) * element_bytes;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (needed > free_bytes)
      throw UsageError("GEMM operands need " + format_bytes(needed) + " but GPU " +
                       std::to_string(device_) + " has only " + format_bytes(free_bytes) +
                       " free; replay fewer layers with --layers");
    CUDA_CHECK(cudaMalloc(&a_, a * element_bytes));
    CUDA_CHECK(cudaMalloc(&b_, b * element_bytes));
    CUDA_CHECK(cudaMalloc(&c_, c * element_bytes));
    a_elements_ = a;
    b_elements_ = b;
    c_elements_ = c;
    device_fill_random(a_, a, dtype, 1, stream_);
    device_fill_random(b_, b, dtype, 2, stream_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void release_operands() {
    cudaFree(a_);
    cudaFree(b_);
    cudaFree(c_);
    a_ = b_ = c_ = nullptr;
    a_elements_ = b_elements_ = c_elements_ = 0;
  }

  int device_;
  std::string device_name_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<LtGemm> gemm_;
  std::unique_ptr<GroupedGemm> grouped_;
  DType dtype_ = DType::bf16;
  void *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  std::uint64_t a_elements_ = 0, b_elements_ = 0, c_elements_ = 0;
  KernelBuffers kernel_buffers_;
  double sync_timeout_s_ = 0;
};

}  // namespace

std::uint64_t device_free_bytes(int device) {
  CUDA_CHECK(cudaSetDevice(device));
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

std::unique_ptr<ComputeEngine> make_cublas_engine(int device, GroupedGemmPath grouped) {
  return std::make_unique<CublasEngine>(device, grouped);
}

}  // namespace collreplay
