// The Schedule: one training step of one rank, as an ordered list of ops on two streams with
// explicit dependencies. Workloads build it; the executor in bench/ runs any schedule; it is
// printed by `replay --dry-run` and saved/loaded as JSON (schema in schedule_json.hpp).
// Standard library only: no MPI, no CUDA.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "collectives/ops/collective_kind.hpp"
#include "common/dtype.hpp"

namespace collreplay {

// Version 2 added tp, shard_group, the groups tp/shard/replicate/expert_node/expert_rail,
// units[].allreduce_bytes and the fp8 dtype; version 3 the compute ops' kernels and host_us and
// the optimizer phase's ops; version 4 the kinds broadcast, send, recv, send_recv, their root and
// peer, and the strided group with its group_size and group_stride; version 5 the kernel kind
// multi_tensor with its operand_element_bytes; version 6 a GEMM's a_transposed
// (workloads/SCHEDULE.md); version 7 a grouped GEMM's group_rows and group_dim. Version 1 to 6
// files still load.
inline constexpr int kScheduleSchemaVersion = 7;

enum class StreamKind { comm, compute };
// Which ranks take part: all of them; the ranks of one node; one expert-parallel group; one
// data-parallel group of expert weights (ranks with the same index in their expert group); one
// tensor-parallel group (tp consecutive ranks); one FSDP shard group of dense weights (ranks with
// the same TP index, shard_group of them); one HSDP/DDP replica group (ranks with the same place
// in their shard group); the expert group's ranks on one node and those with the same local index
// on other nodes (hierarchical all-to-all); any group of a device mesh, given per op by its size
// and stride (strided: CollectiveOp::group_size, group_stride). Rank layout:
// workloads/plan/parallel/mesh.hpp.
enum class GroupKind {
  world,
  node,
  expert,
  data_parallel,
  tp,
  shard,
  replicate,
  expert_node,
  expert_rail,
  strided
};
inline constexpr GroupKind kAllGroupKinds[] = {
    GroupKind::world,       GroupKind::node,   GroupKind::expert,    GroupKind::data_parallel,
    GroupKind::tp,          GroupKind::shard,  GroupKind::replicate, GroupKind::expert_node,
    GroupKind::expert_rail, GroupKind::strided};
enum class Phase { forward, backward, recompute, optimizer };

// C[m x n] = A[m x k] * B[k x n], `batch` times (attention scores and expert GEMMs are batched).
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t batch = 1;
  std::string label;  // "q_proj fwd", "mlp.down dgrad", "attn scores (causal half)", ...
  // A is stored [K x M] (row-major) and read transposed: a weight gradient dW = dY^T X, as
  // torch's Linear backward computes it, whose K (the rows) is then no operand's leading
  // dimension. Rows not a multiple of 8 (an expert's share of tokens) would otherwise misalign
  // A's rows and cost cuBLAS its fast kernels (measured: 135 against 750 TFLOP/s on an H100).
  bool a_transposed = false;
  // A grouped GEMM (torch._grouped_mm over stacked experts): `batch` groups, group g with
  // group_rows[g] rows (an expert's routed rows, 0 for an expert no token chose) in place of M,
  // or of K when group_k (the weight gradient dW_g = dY_g^T X_g). M (or K) then holds the rows'
  // mean rounded up, so m x k x batch bounds the packed operands. Empty: a plain GEMM.
  std::vector<std::int64_t> group_rows{};  // {}: aggregate initialisers may leave it out
  bool group_k = false;
};

// The rows a grouped GEMM's groups have in total (0 for a plain GEMM).
std::int64_t grouped_rows_total(const GemmShape& g);
// 2 x m x n x k x batch for a plain GEMM; a grouped one sums its groups' own rows.
double gemm_shape_flops(const GemmShape& g);
// A grouped GEMM of one group per entry of `rows` (m, or k when group_k, from the rows' mean).
GemmShape grouped_gemm(std::vector<std::int64_t> rows, std::int64_t m, std::int64_t n,
                       std::int64_t k, bool group_k, std::string label);
// The GEMM with its rows (M, or every group's rows) scaled by `fraction`, rounded: a grouped
// GEMM keeps its groups. Rows that round to 0 give m (or k) 0.
GemmShape scale_gemm_rows(GemmShape g, double fraction);

struct CollectiveOp {
  CollectiveKind kind = CollectiveKind::all_gather;
  DType dtype = DType::bf16;
  GroupKind group = GroupKind::world;
  // nccl-tests' size S: the whole buffer (all_gather output, reduce_scatter input, all_to_all
  // send buffer, all_reduce buffer), in bytes, on this rank. For all_to_allv, the send total.
  std::uint64_t bytes = 0;
  // all_to_allv only: elements sent to / received from each peer of the group, in group order.
  std::vector<std::uint64_t> send_counts;
  std::vector<std::uint64_t> recv_counts;
  // broadcast: the root's rank within the op's group. send, recv: the peer's rank within it.
  int root = 0;
  int peer = -1;
  // group == strided: the world splits into groups of group_size ranks spaced group_stride apart
  // (rank r's group is {base + i x stride : i < size}, block = size x stride,
  // base = r / block x block + r % stride; its group rank is i). Stride 1: consecutive ranks (TP,
  // pipeline stages, HSDP shard groups); larger: the strided families (HSDP replicas, expert
  // data-parallel), as torch's DeviceMesh and new_subgroups make them. strided_group() in
  // workloads/plan/parallel/mesh.hpp does the arithmetic.
  int group_size = 0, group_stride = 1;
};

// How a non-GEMM kernel walks memory, which sets its speed (workloads/model/eager_kernels.hpp
// names the kernels a framework runs; bench/compute runs or models each kind).
enum class KernelKind {
  vector,   // contiguous operands of one shape: bound by memory bandwidth
  generic,  // broadcast, strided, gathered or dtype-converting operands: per-element index math
  reduce,   // rows of `inner` elements reduced (norm statistics, softmax, bias and weight grads)
  copy,     // device-to-device memcpy
  sync,     // the host waits for the device (a few bytes read back: nonzero, item())
  timed,    // a measured duration (an imported trace): the kernel takes duration_us
  // torch's multi_tensor_apply: foreach ops and fused optimizers. Tensor lists of one shape read
  // and written a 64K-element chunk per block, at most 320 blocks a launch, 4 elements a load:
  // narrower loads and fewer blocks than `vector`, so slower for the same bytes.
  multi_tensor,
};
inline constexpr KernelKind kAllKernelKinds[] = {
    KernelKind::vector, KernelKind::generic, KernelKind::reduce,      KernelKind::copy,
    KernelKind::sync,   KernelKind::timed,   KernelKind::multi_tensor};

// `launches` kernels of one kind that together read read_bytes and write write_bytes over
// `elements` elements (a norm's statistics, an optimizer update over many tensors, ...).
struct KernelSlice {
  KernelKind kind = KernelKind::vector;
  std::string label;  // "layers.3.input_layernorm fwd: x.float()"
  int at = 0;         // how many of the op's GEMMs run before it: its place in the op's order
  std::uint64_t launches = 1;
  std::uint64_t elements = 0;
  std::uint64_t inner = 0;  // reduce: elements per reduced row
  std::uint64_t read_bytes = 0, write_bytes = 0;
  double flops = 0;        // arithmetic (not tensor-core) work, for the record
  double duration_us = 0;  // timed: the measured GPU time of the whole slice
  // multi_tensor: bytes of one element of one tensor list (2 for bf16), which with `elements`
  // says how many lists the kernel reads and writes (multi_tensor_operands).
  std::uint64_t operand_element_bytes = 0;
  // multi_tensor: the host time of each launch after the call's first (multi_tensor_apply's loop
  // launching the next chunk list), out of the op's host_us; the rest of the call's share comes
  // before its first launch. An engine's own launch then runs inside the charge instead of after
  // it. 0: every launch after the first at once.
  double host_us_per_launch = 0;
};

// A multi_tensor slice's tensor lists read and written: its bytes over elements x
// operand_element_bytes, rounded (a scaled slice keeps the ratio only to rounding). Zero when
// either is zero.
struct MultiTensorOperands {
  std::uint64_t reads = 0, writes = 0;
};
inline MultiTensorOperands multi_tensor_operands(const KernelSlice& k) {
  const std::uint64_t per = k.elements * k.operand_element_bytes;
  if (per == 0) return {};
  return {(k.read_bytes + per / 2) / per, (k.write_bytes + per / 2) / per};
}

struct ComputeOp {
  DType dtype = DType::bf16;
  std::vector<GemmShape> gemms;
  std::vector<KernelSlice> kernels;  // in order among the GEMMs (KernelSlice::at)
  // Host time the framework spends issuing the op's kernels (Python, dispatch, autograd, hooks),
  // spread evenly over its launches: a GPU that outruns the host waits, as in eager PyTorch.
  double host_us = 0;
};

struct ScheduleOp {
  std::string name;  // unique within the schedule: "ag.fwd.layers.3", "compute.bwd.layers.3"
  StreamKind stream = StreamKind::comm;
  Phase phase = Phase::forward;
  std::string unit;       // FSDP unit the op belongs to ("root", "layers.3", "layers.3.mlp")
  int layer = -1;         // decoder layer index, -1 for the root / model-level ops
  std::vector<int> deps;  // indices of earlier ops that must finish before this one starts
  // Comm ops meant to overlap compute: index of the compute op they hide behind, -1 when the
  // communication is exposed by design (the first all-gather, MoE dispatch on the critical path).
  int hides_behind = -1;
  std::variant<CollectiveOp, ComputeOp> body;

  bool is_collective() const { return std::holds_alternative<CollectiveOp>(body); }
  const CollectiveOp& collective() const { return std::get<CollectiveOp>(body); }
  const ComputeOp& compute() const { return std::get<ComputeOp>(body); }
};

// Per-unit summary, as `replay --dry-run` prints it.
struct UnitSummary {
  std::string name;
  std::uint64_t params = 0;                // parameters held by the unit (unpadded)
  std::uint64_t shard_bytes = 0;           // this rank's shard, in the param dtype
  std::uint64_t allgather_bytes = 0;       // all-gather output bytes per rank (padded)
  std::uint64_t reduce_scatter_bytes = 0;  // reduce-scatter input bytes per rank (reduce dtype)
  std::uint64_t allreduce_bytes = 0;       // HSDP: the reduced shard; DDP: the bucket (0: none)
  double fwd_flops = 0;
  double bwd_flops = 0;  // dgrad + wgrad (+ recompute when checkpointing)
};

struct MoeLayerSummary {
  int layer = 0;
  std::uint64_t dispatch_send_bytes = 0;        // whole send buffer, local rows included
  std::uint64_t dispatch_cross_rank_bytes = 0;  // rows that leave the rank
  std::uint64_t combine_send_bytes = 0;
  std::uint64_t combine_cross_rank_bytes = 0;
};

// Names used in schedule JSON, tables and results ("data_parallel"); collective kinds are named
// by their op specs (collective_kind_name in collectives/ops/collective_kind.hpp).
std::string_view group_kind_name(GroupKind group);
// The group's name, with size and stride for a strided one: "tp", "strided(4,2)".
std::string group_label(const CollectiveOp& collective);
std::string_view stream_kind_name(StreamKind stream);
std::string_view phase_name(Phase phase);
std::string_view kernel_kind_name(KernelKind kind);

struct Schedule {
  int schema_version = kScheduleSchemaVersion;
  std::string model, plan, wrap;
  int world = 1;
  int gpus_per_node = 1;
  int ep = 1;           // expert-parallel degree (1: no expert parallelism)
  int tp = 1;           // tensor-parallel degree (consecutive ranks)
  int shard_group = 0;  // ranks of a dense FSDP shard group (0: world / tp)
  int rank = 0;         // the rank this schedule is for (MoE row counts differ per rank)
  std::int64_t micro_batch = 1, seq = 1;
  int micro_batches = 1;              // gradient-accumulation micro-batches per step
  std::uint64_t tokens_per_step = 0;  // tokens this rank processes per step
  // For the dry-run totals: parameters of the modelled model (all experts; with
  // --layers N the first N decoder layers plus the root) and those active per token.
  std::uint64_t model_params = 0;
  std::uint64_t active_params = 0;
  std::vector<UnitSummary> units;
  std::vector<MoeLayerSummary> moe;
  std::vector<ScheduleOp> ops;
};

}  // namespace collreplay
