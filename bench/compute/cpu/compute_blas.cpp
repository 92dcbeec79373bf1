#include "bench/compute/cpu/compute_blas.hpp"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <new>
#include <thread>

#include "bench/compute/compute_scale.hpp"
#include "bench/compute/launch_order.hpp"
#include "bench/compute/operand_bytes.hpp"
#include "bench/compute/cpu/worker_event.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"

namespace collreplay {
namespace {

// Runs queued tasks in order on one thread: the host equivalent of a CUDA stream.
class WorkerQueue {
 public:
  WorkerQueue() : thread_([this] { loop(); }) {}
  ~WorkerQueue() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_one();
    thread_.join();
  }
  void push(std::function<void()> task) {
    {
      std::lock_guard lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
  }

 private:
  void loop() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts after the members it uses exist
};

class BlasEngine : public ComputeEngine {
 public:
  explicit BlasEngine(int threads) : threads_(threads) {
    if (threads < 1) throw UsageError("--compute-threads must be >= 1");
    openblas_set_num_threads(threads);
  }
  ~BlasEngine() override { synchronize(); }

  std::string description() const override {
    return "OpenBLAS fp32 sgemm, " + std::to_string(threads_) + " thread" +
           (threads_ == 1 ? "" : "s");
  }
  bool enqueues_on_device() const override { return false; }

  std::uint64_t reserve(const std::vector<GemmShape>& shapes, DType) override {
    const std::uint64_t bytes = host_gemm_operand_bytes(shapes);
    try {
      operands_.assign(host_gemm_operand_elements(shapes), 1.0f);
    } catch (const std::bad_alloc&) {
      throw UsageError("GEMM operands need " + format_bytes(bytes) +
                       " of host memory, which is not available; try fewer --layers or a "
                       "shorter --seq");
    }
    return bytes;
  }

  std::uint64_t reserve_kernels(std::uint64_t launch_bytes) override {
    const std::uint64_t bytes = kernel_buffer_bytes(launch_bytes, false);
    if (kernel_scratch_.size() < bytes) kernel_scratch_.assign(bytes, 1);
    return kernel_scratch_.size();
  }

  // Every GEMM carves A, B and C from the one operand buffer (see operand_bytes.hpp); with the
  // buffer all ones and alpha = 1/k, C is all ones again (k ones summed exactly, then scaled),
  // so whatever a later GEMM reads stays near 1: never zero, denormal or infinite, all of which
  // would change the BLAS's speed. Kernels move their bytes through a scratch buffer; the host
  // time between launches is the host's own here, so it is not added.
  void issue(const ComputeOp& op, double scale,
             std::span<const std::shared_ptr<StreamEvent>>) override {
    std::vector<Launch> launches = launch_order(op, scale);
    for (const Launch& l : launches)
      if (l.is_gemm && static_cast<std::uint64_t>(l.gemm.m * l.gemm.k + l.gemm.k * l.gemm.n +
                                                  l.gemm.m * l.gemm.n) > operands_.size())
        throw RuntimeError("BLAS engine: GEMM '" + l.gemm.label + "' is larger than reserved");
    worker_.push([this, launches = std::move(launches)] {
      for (const Launch& l : launches) {
        if (l.is_gemm)
          run_gemm(l.gemm);
        else
          run_kernel(l.kernel);
      }
    });
  }

  std::shared_ptr<StreamEvent> record() override {
    auto event = std::make_shared<WorkerEvent>();
    worker_.push([event] { event->complete(); });
    return event;
  }

  void synchronize() override { record()->synchronize(); }

 private:
  void run_gemm(const GemmShape& g) {
    if (!g.group_rows.empty()) {
      run_grouped(g);
      return;
    }
    float* a = operands_.data();
    float* b = a + g.m * g.k;
    float* c = b + g.k * g.n;
    const float alpha = 1.0f / static_cast<float>(g.k);
    const auto op_a = g.a_transposed ? CblasTrans : CblasNoTrans;
    const auto lda = static_cast<int>(g.a_transposed ? g.m : g.k);
    for (std::int64_t i = 0; i < g.batch; ++i)
      cblas_sgemm(CblasRowMajor, op_a, CblasNoTrans, static_cast<int>(g.m), static_cast<int>(g.n),
                  static_cast<int>(g.k), alpha, a, lda, b, static_cast<int>(g.n), 0.0f, c,
                  static_cast<int>(g.n));
  }

  // A grouped GEMM: each group's rows in pieces of at most the mean rows the operands were
  // reserved for (one matrix, reused), so every group's FLOPs run and no piece outgrows them.
  void run_grouped(const GemmShape& g) {
    const std::int64_t most = g.group_k ? g.k : g.m;
    for (std::int64_t rows : g.group_rows)
      for (std::int64_t left = rows; left > 0 && most > 0; left -= most) {
        GemmShape piece = g;
        piece.group_rows.clear();
        piece.batch = 1;
        (g.group_k ? piece.k : piece.m) = std::min(left, most);
        run_gemm(piece);
      }
  }

  void run_kernel(const KernelSlice& k) {
    if (k.kind == KernelKind::sync) return;  // the worker is the device: nothing to wait for
    if (k.kind == KernelKind::timed) {
      std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(k.duration_us));
      return;
    }
    if (kernel_scratch_.empty()) throw RuntimeError("BLAS engine: kernels issued before reserve");
    const std::size_t half = kernel_scratch_.size() / 2;
    unsigned char* src = kernel_scratch_.data();
    unsigned char* dst = src + half;
    for (std::uint64_t moved = 0; moved < std::max(k.read_bytes, k.write_bytes);) {
      const std::size_t n = std::min<std::uint64_t>(half, std::max(k.read_bytes, k.write_bytes) - moved);
      std::memmove(dst, src, n);
      moved += n;
    }
  }

  int threads_;
  std::vector<float> operands_;
  std::vector<unsigned char> kernel_scratch_;
  WorkerQueue worker_;  // last: destroyed (joined) before the operands it reads
};

}  // namespace

std::unique_ptr<ComputeEngine> make_blas_engine(int threads) {
  return std::make_unique<BlasEngine>(threads);
}

}  // namespace collreplay
