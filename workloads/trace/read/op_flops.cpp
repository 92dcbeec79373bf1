#include "workloads/trace/read/op_flops.hpp"

#include <algorithm>
#include <map>

namespace collreplay::trace {
namespace {

using Dims = std::vector<std::int64_t>;

// Attention: where q sits among the op's inputs and where is_causal does (the ATen schemas,
// native_functions.yaml), and whether it is a backward.
struct Attention {
  std::size_t query = 0, is_causal = 0;
  bool backward = false;
};
const std::map<std::string, Attention>& attention_ops() {
  static const std::map<std::string, Attention> ops = {
      {"aten::_scaled_dot_product_flash_attention", {0, 4, false}},
      {"aten::_scaled_dot_product_efficient_attention", {0, 6, false}},
      {"aten::_scaled_dot_product_cudnn_attention", {0, 6, false}},
      {"aten::_scaled_dot_product_flash_attention_backward", {1, 11, true}},
      {"aten::_scaled_dot_product_efficient_attention_backward", {1, 11, true}},
      {"aten::_scaled_dot_product_cudnn_attention_backward", {1, 14, true}},
  };
  return ops;
}

double product(const Dims& d, std::size_t from, std::size_t to) {
  double p = 1;
  for (std::size_t i = from; i < to && i < d.size(); ++i) p *= static_cast<double>(d[i]);
  return p;
}

const Dims* input(const ShapedOp& op, std::size_t i) {
  return i < op.dims.size() ? &op.dims[i] : nullptr;
}

// C[m x n] = A[m x k] B[k x n]: 2mnk (a multiply and an add per term), batch times.
double gemm(const Dims* a, const Dims* b, bool batched) {
  const std::size_t rank = batched ? 3 : 2;
  if (!a || !b || a->size() != rank || b->size() != rank) return 0;
  const double batch = batched ? static_cast<double>((*a)[0]) : 1;
  return 2 * batch * static_cast<double>((*a)[rank - 2]) * static_cast<double>((*a)[rank - 1]) *
         static_cast<double>((*b)[rank - 1]);
}

// torch.matmul's broadcasting: a 1-D operand is a row or column; leading dims are a batch.
double matmul(const Dims* a, const Dims* b) {
  if (!a || !b || a->empty() || b->empty()) return 0;
  const double k = static_cast<double>(a->back());
  const double m = a->size() >= 2 ? static_cast<double>((*a)[a->size() - 2]) : 1;
  const double n = b->size() >= 2 ? static_cast<double>(b->back()) : 1;
  const double batch = std::max(a->size() > 2 ? product(*a, 0, a->size() - 2) : 1,
                                b->size() > 2 ? product(*b, 0, b->size() - 2) : 1);
  return 2 * batch * m * k * n;
}

// FlashAttention's count (flash_attn benchmarks, benchmark_flash_attention.py flops()): the two
// GEMMs Q K^T and P V, 4 b h s_q s_kv d forward (2 b h s_q s_kv (d + d_v) when V's head differs),
// half of it when causal; backward 2.5x the forward (five GEMMs where the forward has two).
double attention(const ShapedOp& op, const Attention& a) {
  const Dims* q = input(op, a.query);
  const Dims* k = input(op, a.query + 1);
  const Dims* v = input(op, a.query + 2);
  if (!q || !k || !v || q->size() != 4 || k->size() != 4 || v->size() != 4) return 0;
  double f =
      2 * product(*q, 0, 3) * static_cast<double>((*k)[2]) * static_cast<double>((*q)[3] + (*v)[3]);
  if (a.is_causal < op.concrete.size() && op.concrete[a.is_causal] == "True") f /= 2;
  return a.backward ? 2.5 * f : f;
}

}  // namespace

bool counts_flops(const std::string& name) {
  return name == "aten::mm" || name == "aten::addmm" || name == "aten::bmm" ||
         name == "aten::baddbmm" || name == "aten::matmul" || name == "aten::linear" ||
         attention_ops().count(name) > 0;
}

double op_flops(const ShapedOp& op) {
  const std::string& n = op.name;
  // torch.utils.flop_counter counts the same: mm 2mnk; addmm and baddbmm as their product (the
  // bias add is not counted); linear 2 x rows x in x out.
  if (n == "aten::mm") return gemm(input(op, 0), input(op, 1), false);
  if (n == "aten::addmm") return gemm(input(op, 1), input(op, 2), false);
  if (n == "aten::bmm") return gemm(input(op, 0), input(op, 1), true);
  if (n == "aten::baddbmm") return gemm(input(op, 1), input(op, 2), true);
  if (n == "aten::matmul") return matmul(input(op, 0), input(op, 1));
  if (n == "aten::linear") {
    const Dims* x = input(op, 0);
    const Dims* w = input(op, 1);
    if (!x || !w || x->empty() || w->size() != 2 || x->back() != (*w)[1]) return 0;
    return 2 * product(*x, 0, x->size() - 1) * static_cast<double>((*w)[1]) *
           static_cast<double>((*w)[0]);
  }
  if (auto a = attention_ops().find(n); a != attention_ops().end()) return attention(op, a->second);
  return 0;
}

std::optional<double> traced_flops(const TraceEvents& trace) {
  if (!trace.has_shapes) return std::nullopt;
  std::vector<const ShapedOp*> ops;
  for (const ShapedOp& op : trace.shaped_ops) ops.push_back(&op);
  // Per thread, outer before inner: by start, the longer first.
  std::sort(ops.begin(), ops.end(), [](const ShapedOp* a, const ShapedOp* b) {
    if (a->tid != b->tid) return a->tid < b->tid;
    if (a->start_us != b->start_us) return a->start_us < b->start_us;
    return a->end_us > b->end_us;
  });
  std::vector<bool> holds_counted(ops.size(), false);
  std::vector<std::size_t> open;  // the ops enclosing the current one
  for (std::size_t i = 0; i < ops.size(); ++i) {
    while (!open.empty() &&
           (ops[open.back()]->tid != ops[i]->tid || ops[open.back()]->end_us < ops[i]->end_us))
      open.pop_back();
    if (!open.empty()) holds_counted[open.back()] = true;
    open.push_back(i);
  }
  double flops = 0;
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (!holds_counted[i]) flops += op_flops(*ops[i]);
  return flops;
}

}  // namespace collreplay::trace
