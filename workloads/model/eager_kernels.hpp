// The non-GEMM kernels a training step launches in eager PyTorch, module by module, as Hugging
// Face transformers writes Qwen2 / Llama / Mixtral (read off torch.profiler traces of the
// reference, sweeps/gpu/reference/, on an H100 with torch 2.11): RMSNorm in fp32 pieces,
// rotate-half rotary, SiLU(gate) * up, residual adds, logits upcast to fp32 for the
// cross-entropy, the MoE loop over experts with its host syncs and, for stacked experts, the
// full-size zero-and-accumulate of each expert's weight gradient. Each function gives the
// forward kernels and the backward kernels in execution order; `bytes` is the activation dtype's
// size (bf16: 2). Where PyTorch fuses nothing, neither does this list.
#pragma once
#include <cstdint>
#include <string>

#include "workloads/model/work.hpp"

namespace collreplay {

// The host reads a few bytes back (.item(), .tolist(), nonzero): a `sync` kernel labelled
// "label: what", after which the host waits for the GPU.
void host_sync(Work& w, const std::string& label, const char* what);

// RMSNorm over rows x hidden, weight [hidden]; the backward ends with the residual stream's
// gradient accumulation.
WorkSet rms_norm_kernels(const std::string& label, std::uint64_t rows, std::uint64_t hidden,
                         std::uint64_t bytes);
// Rotary embedding on q ([tokens, q_width]) and k ([tokens, kv_width]) with cos/sin tables of
// [tokens, head_dim]; the backward also makes the q and k gradients contiguous again. Partial
// rotary (q_pass, kv_pass: the widths that pass through, 0 when all turn) as transformers'
// apply_rotary_pos_emb runs it: x[..., :rot] turned, torch.cat((x_embed, x_pass)); in backward
// each slice's gradient is a zero-filled full tensor with the slice copied in, the two summed.
WorkSet rotary_kernels(const std::string& label, std::uint64_t tokens, std::uint64_t q_width,
                       std::uint64_t kv_width, std::uint64_t head_dim, std::uint64_t bytes,
                       std::uint64_t q_pass = 0, std::uint64_t kv_pass = 0);
// The cos/sin tables, once per forward.
WorkSet rotary_table_kernels(const std::string& label, std::uint64_t tokens,
                             std::uint64_t head_dim, std::uint64_t bytes);
// Backward only: the input gradients of `branches` linears that read one input are summed.
WorkSet input_grad_sum_kernels(const std::string& label, std::uint64_t tokens,
                               std::uint64_t width, int branches, std::uint64_t bytes);
// Backward only: a linear's bias gradient (a sum over the rows).
WorkSet bias_grad_kernels(const std::string& label, std::uint64_t rows, std::uint64_t out,
                          std::uint64_t bytes);
// SiLU(gate) * up over [rows, intermediate]; `strided`: gate and up are halves of one GEMM's
// output (stacked experts), which takes PyTorch's strided kernels.
WorkSet swiglu_kernels(const std::string& label, std::uint64_t rows, std::uint64_t intermediate,
                       bool strided, std::uint64_t bytes);
// nn.LayerNorm over rows x hidden with weight and bias (GPT-NeoX); backward ends with the
// residual stream's gradient accumulation, as RMSNorm's does.
WorkSet layer_norm_kernels(const std::string& label, std::uint64_t rows, std::uint64_t hidden,
                           std::uint64_t bytes);
// GELU between a non-gated MLP's two linears, over [rows, intermediate].
WorkSet gelu_kernels(const std::string& label, std::uint64_t rows, std::uint64_t intermediate,
                     std::uint64_t bytes);
// Nemotron's LayerNorm1P (modeling_nemotron.py): `self.weight + 1`, then nn.LayerNorm's kernels
// with that weight; the add's backward hands the gradient through to the weight unchanged.
WorkSet layer_norm_1p_kernels(const std::string& label, std::uint64_t rows, std::uint64_t hidden,
                              std::uint64_t bytes);
// transformers' ReLUSquaredActivation, torch.square(relu(x)), over [rows, intermediate]. square
// is pow(x, 2): its backward is pow_backward's grad * (2 * x.pow(1)), x.pow(1) a copy.
WorkSet squared_relu_kernels(const std::string& label, std::uint64_t rows,
                             std::uint64_t intermediate, std::uint64_t bytes);
// x + f(x) of the residual stream (forward only: its backward is the norm's accumulation).
WorkSet residual_kernels(const std::string& label, std::uint64_t tokens, std::uint64_t hidden,
                         std::uint64_t bytes);
// Embedding lookup; backward: the dense gradient (zeroed, then rows added); `tied`: lm_head's
// weight gradient is added to it.
WorkSet embedding_kernels(const std::string& label, std::uint64_t tokens, std::uint64_t hidden,
                          std::uint64_t vocab, bool tied, std::uint64_t bytes);
// Logits upcast to fp32, log-softmax and NLL over [tokens, vocab] (HF's ForCausalLMLoss).
WorkSet cross_entropy_kernels(const std::string& label, std::uint64_t tokens,
                              std::uint64_t vocab, std::uint64_t bytes);
// A fused cross-entropy (flash-attn's): forward reads the logits once and keeps each row's
// log-sum-exp; backward reads them again and writes their gradient over them.
WorkSet fused_cross_entropy_kernels(const std::string& label, std::uint64_t tokens,
                                    std::uint64_t vocab, std::uint64_t bytes);
// The router after the gate GEMM: softmax in fp32, top-k, renormalised weights.
WorkSet router_kernels(const std::string& label, std::uint64_t tokens, std::uint64_t experts,
                       std::uint64_t top_k, std::uint64_t bytes);

// The expert loop of one MoE block around each expert's GEMMs (HF's eager loop):
// dispatch (before the expert's first GEMM), activation (between its up and down GEMMs) and
// combine (after); syncs are the host waiting for the device.
struct ExpertLoop {
  std::uint64_t tokens = 0, hidden = 0, intermediate = 0, experts = 0, top_k = 0, bytes = 2;
  bool stacked = false;  // transformers 5.x MixtralExperts ([E, 2I, h] and [E, h, I])
};
WorkSet expert_loop_start_kernels(const std::string& label, const ExpertLoop& loop);
WorkSet expert_dispatch_kernels(const std::string& label, const ExpertLoop& loop,
                                std::uint64_t rows);
WorkSet expert_combine_kernels(const std::string& label, const ExpertLoop& loop,
                               std::uint64_t rows);
// torch._grouped_mm experts as torchtitan's MoE runs them (TokenReorderer,
// indices_padding_wrapper, MoE.forward; with expert parallelism the dispatch's own permute pads
// the rank's received rows the same way): the routed rows sorted by expert on
// the device (no host sync) and gathered by token, padded per expert to 8 rows within a bound of
// rows + local_experts x 8 (a zero row stacked under them, rows picked by permuted_indices),
// one grouped GEMM per projection over all of them, the rows put back, weighted in float32 and
// scatter_add'ed into zeros; backward in reverse.
WorkSet grouped_permute_kernels(const std::string& label, const ExpertLoop& loop,
                                std::uint64_t rows, std::uint64_t local_experts);
WorkSet grouped_unpermute_kernels(const std::string& label, const ExpertLoop& loop,
                                  std::uint64_t rows, std::uint64_t local_experts);
// Backward only, stacked experts: the weight gradient of one expert's slice of the stacked
// parameter [stack, out, in] is a full-size zero tensor with the slice copied in (torch's
// select_backward), added to the running gradient unless it is the first. `stack`: the experts
// the rank's parameter stacks (all of them; with expert parallelism, the rank's own).
WorkSet stacked_slice_grad_kernels(const std::string& label, const ExpertLoop& loop,
                                   std::uint64_t stack, std::uint64_t out, std::uint64_t in,
                                   bool first);

// FSDP2 (fully_shard): after an all-gather, the compute stream copies the gathered buffer out
// into the unit's parameters (split_with_sizes_copy; at world 1 one memcpy per tensor); before
// a reduce-scatter it copies the unit's gradients into the reduce-scatter input (_chunk_cat).
Work fsdp2_copy_out_kernels(const std::string& label, std::uint64_t gathered_bytes,
                            std::uint64_t tensors, bool world_of_one);
// Over a reduce-scatter group of one rank (`single_rank`) foreach_reduce (torch 2.11) issues
// no collective but copies the copy-in's buffer whole into the sharded gradient
// (reduce_output.copy_(reduce_scatter_input)): one memcpy of `input_bytes` after the copy-in.
// torch runs it on FSDP2's reduce-scatter stream, replay on the compute stream: in the
// reference's profiled world-1 step nothing ran beside it (the host sat in _chunk_cat's
// metadata until the GPU caught up: bench/RESULTS.md, "Fidelity on an H100").
Work fsdp2_copy_in_kernels(const std::string& label, std::uint64_t grad_bytes,
                           std::uint64_t input_bytes, bool single_rank);

}  // namespace collreplay
