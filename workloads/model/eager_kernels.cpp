#include "workloads/model/eager_kernels.hpp"

#include <algorithm>
#include <tuple>

namespace collreplay {
namespace {

constexpr std::uint64_t kF32 = 4;
constexpr std::uint64_t kIndex = 8;  // int64 indices
// torchtitan's TOKEN_GROUP_ALIGN_SIZE_M for bf16: each expert's rows padded to a multiple of it.
constexpr std::uint64_t kGroupAlignRows = 8;

struct Spec {
  KernelKind kind;
  std::uint64_t elements, read_bytes, write_bytes;
  std::uint64_t launches = 1, inner = 0;
};

void add(Work& w, const std::string& label, const char* what, const Spec& s) {
  KernelSlice k;
  k.kind = s.kind;
  k.label = label + ": " + what;
  k.launches = s.launches;
  k.elements = s.elements;
  k.inner = s.inner;
  k.read_bytes = s.read_bytes;
  k.write_bytes = s.write_bytes;
  k.flops = s.kind == KernelKind::copy || s.kind == KernelKind::sync ? 0.0
                                                                      : static_cast<double>(s.elements);
  w.add_kernel(std::move(k));
}

}  // namespace

void host_sync(Work& w, const std::string& label, const char* what) {
  add(w, label, what, {KernelKind::sync, 0, 0, 0});
}

WorkSet rms_norm_kernels(const std::string& label, std::uint64_t rows, std::uint64_t hidden,
                         std::uint64_t a) {
  const std::uint64_t e = rows * hidden, r = rows, h = hidden;
  const KernelKind V = KernelKind::vector, G = KernelKind::generic, R = KernelKind::reduce;
  WorkSet s;
  Work& f = s.fwd;
  add(f, label, "x.float()", {G, e, a * e, kF32 * e});
  add(f, label, "pow(2)", {V, e, kF32 * e, kF32 * e});
  add(f, label, "mean(-1)", {R, e, kF32 * e, kF32 * r, 1, h});
  add(f, label, "+ eps, rsqrt", {V, r, kF32 * r, kF32 * r, 2});
  add(f, label, "x * rsqrt", {G, e, kF32 * (e + r), kF32 * e});
  add(f, label, "to(dtype)", {V, e, kF32 * e, a * e});
  add(f, label, "weight * x", {G, e, a * (e + h), a * e});
  Work& b = s.bwd;
  add(b, label, "grad * weight", {G, e, a * (e + h), a * e});
  add(b, label, "grad * x_hat", {V, e, 2 * a * e, a * e});
  add(b, label, "weight grad sum", {R, e, a * e, a * h, 1, r});
  add(b, label, "grad.float()", {G, e, a * e, kF32 * e});
  add(b, label, "grad * x", {V, e, 2 * kF32 * e, kF32 * e});
  add(b, label, "grad * rsqrt", {G, e, kF32 * (e + r), kF32 * e});
  add(b, label, "sum(-1)", {R, e, kF32 * e, kF32 * r, 1, h});
  add(b, label, "rsqrt, mean backward (rows)", {V, r, kF32 * r, kF32 * r, 3});
  add(b, label, "mean backward: expand / hidden", {G, e, kF32 * r, kF32 * e});
  add(b, label, "expand copy", {KernelKind::copy, e, kF32 * e, kF32 * e});
  add(b, label, "pow backward: 2 x", {V, e, kF32 * e, kF32 * e});
  add(b, label, "grad * 2 x", {V, e, 2 * kF32 * e, kF32 * e});
  add(b, label, "add the two paths", {V, e, 2 * kF32 * e, kF32 * e});
  add(b, label, "to(dtype)", {V, e, kF32 * e, a * e});
  add(b, label, "residual grad add_", {V, e, 2 * a * e, a * e});
  return s;
}

WorkSet rotary_kernels(const std::string& label, std::uint64_t tokens, std::uint64_t q_width,
                       std::uint64_t kv_width, std::uint64_t head_dim, std::uint64_t a,
                       std::uint64_t q_pass, std::uint64_t kv_pass) {
  const KernelKind V = KernelKind::vector, G = KernelKind::generic;
  const std::uint64_t table = tokens * head_dim;
  WorkSet s;
  using Part = std::tuple<const char*, std::uint64_t, std::uint64_t>;
  for (const auto& [name, width, pass] : {Part{"q", q_width, q_pass}, Part{"k", kv_width, kv_pass}}) {
    const std::uint64_t e = tokens * width, full = tokens * (width + pass);
    const std::string l = label + " " + name;
    add(s.fwd, l, "x * cos", {G, e, a * (e + table), a * e});
    add(s.fwd, l, "-x2", {G, e / 2, a * e / 2, a * e / 2});
    add(s.fwd, l, "cat(-x2, x1)", {G, e, a * e, a * e});
    add(s.fwd, l, "rotate_half(x) * sin", {G, e, a * (e + table), a * e});
    add(s.fwd, l, "add", {G, e, 2 * a * e, a * e});
    if (pass > 0) add(s.fwd, l, "cat(x_embed, x_pass)", {G, full, a * full, a * full});
  }
  // Backward: k first (its rotary ran last), then q; each ends with its transpose to the
  // projection's [tokens, width] layout.
  for (const auto& [name, width, pass] : {Part{"k", kv_width, kv_pass}, Part{"q", q_width, q_pass}}) {
    const std::uint64_t e = tokens * width, full = tokens * (width + pass);
    const std::string l = label + " " + name;
    add(s.bwd, l, "grad * sin", {G, e, a * (e + table), a * e});
    add(s.bwd, l, "zeros for the halves", {V, e, 0, a * e, 2});
    add(s.bwd, l, "halves copied, -x2 backward", {G, e / 2, a * e / 2, a * e / 2, 3});
    add(s.bwd, l, "cat backward add_", {V, e, 2 * a * e, a * e});
    add(s.bwd, l, "grad * cos", {G, e, a * (e + table), a * e});
    add(s.bwd, l, "add_", {G, e, 2 * a * e, a * e});
    if (pass > 0) {
      add(s.bwd, l, "slice backward: zeros", {V, 2 * full, 0, 2 * a * full, 2});
      add(s.bwd, l, "slice backward: slices copied in", {G, full, a * full, a * full, 2});
      add(s.bwd, l, "slice grads summed", {V, full, 2 * a * full, a * full});
    }
    add(s.bwd, l, "transpose(1, 2).contiguous()", {G, full, a * full, a * full});
  }
  return s;
}

WorkSet rotary_table_kernels(const std::string& label, std::uint64_t tokens,
                             std::uint64_t head_dim, std::uint64_t a) {
  const std::uint64_t e = tokens * head_dim;
  WorkSet s;
  add(s.fwd, label, "inv_freq x positions, cat", {KernelKind::generic, e, kF32 * e, kF32 * e, 2});
  add(s.fwd, label, "cos, sin, to(dtype)", {KernelKind::generic, e, kF32 * e, a * e, 4});
  return s;
}

WorkSet input_grad_sum_kernels(const std::string& label, std::uint64_t tokens,
                               std::uint64_t width, int branches, std::uint64_t a) {
  const std::uint64_t e = tokens * width;
  WorkSet s;
  for (int i = 1; i < branches; ++i)
    add(s.bwd, label, "input grads summed", {KernelKind::vector, e, 2 * a * e, a * e});
  return s;
}

WorkSet bias_grad_kernels(const std::string& label, std::uint64_t rows, std::uint64_t out,
                          std::uint64_t a) {
  WorkSet s;
  add(s.bwd, label, "bias grad sum", {KernelKind::reduce, rows * out, a * rows * out, a * out, 1, rows});
  return s;
}

WorkSet swiglu_kernels(const std::string& label, std::uint64_t rows, std::uint64_t intermediate,
                       bool strided, std::uint64_t a) {
  const std::uint64_t e = rows * intermediate;
  const KernelKind k = strided ? KernelKind::generic : KernelKind::vector;
  WorkSet s;
  add(s.fwd, label, "silu(gate)", {k, e, a * e, a * e});
  add(s.fwd, label, "silu(gate) * up", {k, e, 2 * a * e, a * e});
  add(s.bwd, label, "grad * up", {KernelKind::vector, e, 2 * a * e, a * e});
  add(s.bwd, label, "grad * silu(gate)", {k, e, 2 * a * e, a * e});
  add(s.bwd, label, "silu backward", {k, e, 2 * a * e, a * e});
  // Two contiguous halves side by side: PyTorch's vectorized cat.
  if (strided) add(s.bwd, label, "cat(grad gate, grad up)", {KernelKind::vector, 2 * e, 2 * a * e, 2 * a * e});
  return s;
}

// nn.LayerNorm is one fused kernel each way in eager PyTorch (native_layer_norm and its
// backward: the input gradient, then gamma and beta reduced over the rows).
WorkSet layer_norm_kernels(const std::string& label, std::uint64_t rows, std::uint64_t hidden,
                           std::uint64_t a) {
  const std::uint64_t e = rows * hidden;
  WorkSet s;
  add(s.fwd, label, "native_layer_norm", {KernelKind::reduce, e, a * (e + 2 * hidden), a * e + 2 * kF32 * rows, 1, hidden});
  add(s.bwd, label, "layer_norm backward: input grad", {KernelKind::reduce, e, 2 * a * e + 2 * kF32 * rows, a * e, 1, hidden});
  add(s.bwd, label, "layer_norm backward: weight and bias grads", {KernelKind::reduce, 2 * e, 2 * a * e, 2 * a * hidden, 1, rows});
  add(s.bwd, label, "residual grad add_", {KernelKind::vector, e, 2 * a * e, a * e});
  return s;
}

// GELU (exact, erf) over [rows, intermediate]: one kernel each way.
WorkSet gelu_kernels(const std::string& label, std::uint64_t rows, std::uint64_t intermediate,
                     std::uint64_t a) {
  const std::uint64_t e = rows * intermediate;
  WorkSet s;
  add(s.fwd, label, "gelu", {KernelKind::vector, e, a * e, a * e});
  add(s.bwd, label, "gelu backward", {KernelKind::vector, e, 2 * a * e, a * e});
  return s;
}

WorkSet layer_norm_1p_kernels(const std::string& label, std::uint64_t rows, std::uint64_t hidden,
                              std::uint64_t a) {
  WorkSet s;
  add(s.fwd, label, "weight + 1", {KernelKind::vector, hidden, a * hidden, a * hidden});
  const WorkSet norm = layer_norm_kernels(label, rows, hidden, a);
  s.fwd.append(norm.fwd);
  s.bwd.append(norm.bwd);
  return s;
}

WorkSet squared_relu_kernels(const std::string& label, std::uint64_t rows,
                             std::uint64_t intermediate, std::uint64_t a) {
  const std::uint64_t e = rows * intermediate;
  const KernelKind V = KernelKind::vector;
  WorkSet s;
  add(s.fwd, label, "relu", {V, e, a * e, a * e});
  add(s.fwd, label, "square (pow 2)", {V, e, a * e, a * e});
  add(s.bwd, label, "pow backward: x.pow(1) copy", {KernelKind::copy, e, a * e, a * e});
  add(s.bwd, label, "pow backward: 2 x", {V, e, a * e, a * e});
  add(s.bwd, label, "grad * 2 x", {V, e, 2 * a * e, a * e});
  add(s.bwd, label, "relu backward (threshold_backward)", {V, e, 2 * a * e, a * e});
  return s;
}

WorkSet residual_kernels(const std::string& label, std::uint64_t tokens, std::uint64_t hidden,
                         std::uint64_t a) {
  const std::uint64_t e = tokens * hidden;
  WorkSet s;
  add(s.fwd, label, "residual add", {KernelKind::vector, e, 2 * a * e, a * e});
  return s;
}

WorkSet embedding_kernels(const std::string& label, std::uint64_t tokens, std::uint64_t hidden,
                          std::uint64_t vocab, bool tied, std::uint64_t a) {
  const std::uint64_t e = tokens * hidden, table = vocab * hidden;
  WorkSet s;
  add(s.fwd, label, "lookup (gather)", {KernelKind::vector, e, a * e + kIndex * tokens, a * e});
  add(s.bwd, label, "zero the weight grad", {KernelKind::vector, table, 0, a * table});
  // Sort the token ids, then add each run of equal ids into its row.
  add(s.bwd, label, "embedding_dense_backward", {KernelKind::generic, e, 2 * a * e, a * e, 4});
  if (tied) add(s.bwd, label, "tied lm_head grad add_", {KernelKind::vector, table, 2 * a * table, a * table});
  return s;
}

WorkSet cross_entropy_kernels(const std::string& label, std::uint64_t tokens,
                              std::uint64_t vocab, std::uint64_t a) {
  const std::uint64_t e = tokens * vocab;
  const KernelKind G = KernelKind::generic, R = KernelKind::reduce, V = KernelKind::vector;
  WorkSet s;
  add(s.fwd, label, "logits.float()", {G, e, a * e, kF32 * e});
  add(s.fwd, label, "labels shifted", {G, tokens, 2 * kIndex * tokens, kIndex * tokens, 2});
  // Rows of a vocabulary do not fit on chip: max, sum of exponentials and output each read it.
  add(s.fwd, label, "log_softmax", {R, e, 3 * kF32 * e, kF32 * e, 1, vocab});
  add(s.fwd, label, "nll_loss", {G, tokens, kF32 * tokens + kIndex * tokens, kF32, 1});
  add(s.bwd, label, "nll_loss backward", {G, tokens, kIndex * tokens, kF32 * tokens, 1});
  add(s.bwd, label, "zeros for the logits grad", {V, e, 0, kF32 * e});
  add(s.bwd, label, "log_softmax backward", {R, e, 3 * kF32 * e, kF32 * e, 1, vocab});
  add(s.bwd, label, "grad.to(dtype)", {V, e, kF32 * e, a * e});
  return s;
}

WorkSet fused_cross_entropy_kernels(const std::string& label, std::uint64_t tokens,
                                    std::uint64_t vocab, std::uint64_t a) {
  const std::uint64_t e = tokens * vocab;
  WorkSet s;
  add(s.fwd, label, "cross_entropy_fwd",
      {KernelKind::reduce, e, a * e, 2 * kF32 * tokens, 1, vocab});
  add(s.bwd, label, "cross_entropy_bwd (in place)",
      {KernelKind::vector, e, a * e + kF32 * tokens, a * e});
  return s;
}

WorkSet router_kernels(const std::string& label, std::uint64_t tokens, std::uint64_t experts,
                       std::uint64_t top_k, std::uint64_t a) {
  const std::uint64_t e = tokens * experts, k = tokens * top_k;
  const KernelKind G = KernelKind::generic, R = KernelKind::reduce;
  WorkSet s;
  add(s.fwd, label, "logits.float()", {G, e, a * e, kF32 * e});
  add(s.fwd, label, "softmax", {R, e, kF32 * e, kF32 * e, 1, experts});
  add(s.fwd, label, "topk", {G, e, kF32 * e, (kF32 + kIndex) * k, 2});
  add(s.fwd, label, "renormalise, to(dtype)", {G, k, kF32 * k, a * k, 4});
  add(s.bwd, label, "topk weights backward", {G, k, a * k, kF32 * k, 4});
  add(s.bwd, label, "scatter into experts, softmax backward", {R, e, 2 * kF32 * e, kF32 * e, 3, experts});
  add(s.bwd, label, "grad.to(dtype)", {G, e, kF32 * e, a * e});
  return s;
}

WorkSet expert_loop_start_kernels(const std::string& label, const ExpertLoop& l) {
  const std::uint64_t e = l.tokens * l.hidden, mask = l.tokens * l.top_k * l.experts;
  WorkSet s;
  add(s.fwd, label, "zeros_like(x)", {KernelKind::vector, e, 0, l.bytes * e});
  add(s.fwd, label, "one_hot, permute, sum", {KernelKind::generic, mask, kIndex * mask, kIndex * mask, 4});
  if (l.stacked) host_sync(s.fwd, label, "nonzero(expert hit): host waits");
  add(s.bwd, label, "grad of x summed over experts", {KernelKind::vector, e, 2 * l.bytes * e, l.bytes * e});
  return s;
}

WorkSet expert_dispatch_kernels(const std::string& label, const ExpertLoop& l,
                                std::uint64_t rows) {
  const std::uint64_t e = rows * l.hidden, a = l.bytes;
  WorkSet s;
  host_sync(s.fwd, label, "torch.where(mask[e]): host waits");
  add(s.fwd, label, "token ids", {KernelKind::generic, 2 * l.tokens, kIndex * 2 * l.tokens, kIndex * 2 * l.tokens});
  add(s.fwd, label, "x[token] (gather rows)", {KernelKind::vector, e, a * e + kIndex * rows, a * e});
  if (l.stacked) host_sync(s.fwd, label, "expert index .item(): host waits");
  // Backward of the gather: the rows' gradients put back (accumulate) into a zero [tokens, h].
  add(s.bwd, label, "zeros, index_put_ (accumulate)", {KernelKind::generic, e, a * e, a * (e + l.tokens * l.hidden), 2});
  return s;
}

WorkSet expert_combine_kernels(const std::string& label, const ExpertLoop& l,
                               std::uint64_t rows) {
  const std::uint64_t e = rows * l.hidden, a = l.bytes;
  WorkSet s;
  if (l.stacked) host_sync(s.fwd, label, "expert index .item(): host waits");
  add(s.fwd, label, "routing weights of the rows", {KernelKind::generic, rows, kF32 * rows, a * rows});
  add(s.fwd, label, "h * weight", {KernelKind::generic, e, a * (e + rows), a * e});
  add(s.fwd, label, "index_add_ into the output", {KernelKind::generic, e, 2 * a * e, a * e});
  if (l.stacked) host_sync(s.fwd, label, "loop index .item(): host waits");
  add(s.bwd, label, "index_add_ backward (gather rows)", {KernelKind::vector, e, a * e, a * e});
  add(s.bwd, label, "grad * h, sum (weight grad)", {KernelKind::vector, e, 2 * a * e, a * e, 2});
  add(s.bwd, label, "grad * weight", {KernelKind::generic, e, a * (e + rows), a * e});
  add(s.bwd, label, "routing weight grad scattered", {KernelKind::generic, rows, kIndex * rows, kF32 * rows, 7});
  return s;
}

// indices_padding_wrapper's sizes: the bound of padded rows (rows + 8 per local expert), its
// elements, and the elements of the routed rows with the zero row stacked under them.
namespace {
struct PaddedRows {
  std::uint64_t bound, padded_elements, stacked_elements;
};
PaddedRows padded_rows(const ExpertLoop& l, std::uint64_t rows, std::uint64_t local_experts) {
  const std::uint64_t bound = rows + local_experts * kGroupAlignRows;
  return {bound, bound * l.hidden, (rows + 1) * l.hidden};
}
}  // namespace

WorkSet grouped_permute_kernels(const std::string& label, const ExpertLoop& l,
                                std::uint64_t rows, std::uint64_t local_experts) {
  const std::uint64_t k = l.tokens * l.top_k, h = l.hidden, a = l.bytes, e = rows * h;
  const auto [bound, padded, stacked] = padded_rows(l, rows, local_experts);
  const KernelKind V = KernelKind::vector, G = KernelKind::generic;
  WorkSet s;
  add(s.fwd, label, "tokens per expert (histc)", {G, k, kIndex * k, kIndex * l.experts, 2});
  add(s.fwd, label, "argsort by expert", {G, k, kIndex * k, kIndex * k, 2});
  add(s.fwd, label, "scores and token ids in expert order", {G, rows, (kIndex + kF32) * rows, (kIndex + kF32) * rows, 2});
  add(s.fwd, label, "torch.gather(x, rows by token)", {V, e, a * e + kIndex * rows, a * e});
  add(s.fwd, label, "permuted_indices (cumsum, searchsorted)", {G, bound, kIndex * bound, kIndex * bound, 6});
  add(s.fwd, label, "vstack with a zero row", {V, stacked, a * e, a * stacked, 2});
  add(s.fwd, label, "x[permuted_indices] (padded rows)", {V, padded, a * padded + kIndex * bound, a * padded});
  // Backward, in reverse: the padded gather's grad put back (index_put_ accumulate: zeros, the
  // indices sorted, the rows added), vstack's a view, torch.gather's a scatter_add_ into zeros.
  add(s.bwd, label, "x[permuted_indices] backward: zeros", {V, stacked, 0, a * stacked});
  add(s.bwd, label, "x[permuted_indices] backward: sort the indices", {G, bound, 2 * kIndex * bound, 2 * kIndex * bound, 4});
  add(s.bwd, label, "x[permuted_indices] backward: index_put_ (accumulate)", {G, padded, a * (padded + e), a * e});
  add(s.bwd, label, "torch.gather backward: zeros, scatter_add_", {G, e, a * e, a * (e + l.tokens * h), 2});
  add(s.bwd, label, "scores' grad put back (index_put_ accumulate)", {G, rows, (kIndex + kF32) * rows, kF32 * rows, 5});
  return s;
}

WorkSet grouped_unpermute_kernels(const std::string& label, const ExpertLoop& l,
                                  std::uint64_t rows, std::uint64_t local_experts) {
  const std::uint64_t h = l.hidden, a = l.bytes, e = rows * h, out = l.tokens * h;
  const auto [bound, padded, stacked] = padded_rows(l, rows, local_experts);
  const KernelKind V = KernelKind::vector, G = KernelKind::generic;
  WorkSet s;
  add(s.fwd, label, "new_empty, [permuted_indices] = out (index_put_)", {G, padded, a * padded + kIndex * bound, a * padded});
  add(s.fwd, label, "rows.to(float32)", {V, e, a * e, kF32 * e});
  add(s.fwd, label, "rows * score (float32)", {G, e, kF32 * (e + rows), kF32 * e});
  add(s.fwd, label, "weighted rows .to(dtype)", {V, e, kF32 * e, a * e});
  add(s.fwd, label, "zeros_like(x)", {V, out, 0, a * out});
  add(s.fwd, label, "scatter_add (out of place): clone", {KernelKind::copy, out, a * out, a * out});
  add(s.fwd, label, "scatter_add_ into the output", {G, e, a * e + kIndex * rows, a * e});
  // Backward, in reverse.
  add(s.bwd, label, "scatter_add backward: grad.gather(rows)", {V, e, a * e + kIndex * rows, a * e});
  add(s.bwd, label, "weighting backward: grad.to(float32)", {V, e, a * e, kF32 * e});
  add(s.bwd, label, "weighting backward: grad * score", {G, e, kF32 * (e + rows), kF32 * e});
  add(s.bwd, label, "weighting backward: grad * rows (score grad)", {V, e, 2 * kF32 * e, kF32 * e});
  add(s.bwd, label, "weighting backward: sum over hidden", {KernelKind::reduce, e, kF32 * e, kF32 * rows, 1, h});
  add(s.bwd, label, "weighting backward: grad.to(dtype)", {V, e, kF32 * e, a * e});
  add(s.bwd, label, "[:-1] backward: zeros, copy", {V, stacked, a * e, a * (stacked + e), 2});
  add(s.bwd, label, "index_put_ backward: grad[permuted_indices]", {V, padded, a * padded + kIndex * bound, a * padded});
  return s;
}

WorkSet stacked_slice_grad_kernels(const std::string& label, const ExpertLoop& l,
                                   std::uint64_t stack, std::uint64_t out, std::uint64_t in,
                                   bool first) {
  const std::uint64_t slice = out * in, whole = stack * slice, a = l.bytes;
  WorkSet s;
  add(s.bwd, label, "select backward: zeros [experts, out, in]", {KernelKind::vector, whole, 0, a * whole});
  add(s.bwd, label, "select backward: slice copied in", {KernelKind::copy, slice, a * slice, a * slice});
  if (!first)
    add(s.bwd, label, "accumulate into the stacked grad", {KernelKind::vector, whole, 2 * a * whole, a * whole});
  return s;
}

Work fsdp2_copy_out_kernels(const std::string& label, std::uint64_t gathered_bytes,
                            std::uint64_t tensors, bool world_of_one) {
  Work w;
  if (world_of_one)
    add(w, label, "FSDP2 copy-out (a memcpy per parameter)",
        {KernelKind::copy, gathered_bytes, gathered_bytes, gathered_bytes, std::max<std::uint64_t>(tensors, 1)});
  else
    add(w, label, "FSDP2 copy-out (split_with_sizes_copy)",
        {KernelKind::generic, gathered_bytes / 2, gathered_bytes, gathered_bytes});
  return w;
}

Work fsdp2_copy_in_kernels(const std::string& label, std::uint64_t grad_bytes,
                           std::uint64_t input_bytes, bool single_rank) {
  Work w;
  add(w, label, "FSDP2 reduce-scatter copy-in (_chunk_cat)",
      {KernelKind::vector, input_bytes / 2, grad_bytes, input_bytes});
  if (single_rank)
    add(w, label, "FSDP2 reduce over one rank: reduce_output.copy_(input)",
        {KernelKind::copy, input_bytes, input_bytes, input_bytes});
  return w;
}

}  // namespace collreplay
