#include "workloads/plan/resolved_request.hpp"

#include <string>

#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "workloads/plan/parallel/parallel_checks.hpp"
#include "workloads/plan/step/host_time_file.hpp"

namespace collreplay {
namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw UsageError(message);
}

}  // namespace

OptimizerChoice request_optimizer(const WorkloadRequest& q) {
  if (q.distributed_optimizer && q.optimizer == "auto")
    return {OptimizerKind::adamw_fused,
            "auto: Megatron's DistributedOptimizer steps FusedAdam (TE / Apex multi_tensor_adam) "
            "over the fp32 main parameters of this rank's shard"};
  // FSDP2 and tensor parallelism hand torch.optim DTensors; DDP and FSDP1 nn.Parameters.
  const bool dtensors = q.plan == "fsdp2" || q.tp > 1 || !q.mesh.empty();
  return choose_optimizer(q.optimizer,
                          dtensors ? OptimizerParams::dtensor : OptimizerParams::parameter,
                          q.param_device);
}

ResolvedRequest resolve_request(const WorkloadRequest& q) {
  ResolvedRequest r;
  r.request = q;
  // Cheap checks first, so a bad number is reported before the model file is read.
  require(q.world >= 1, "--world must be at least 1 (got " + std::to_string(q.world) + ")");
  require(q.gpus_per_node >= 1, "--gpus-per-node must be at least 1");
  require(q.rank >= 0 && q.rank < q.world,
          "rank " + std::to_string(q.rank) + " is outside world " + std::to_string(q.world));
  require(q.micro_batch >= 1, "--micro-batch must be at least 1");
  require(q.seq >= 1, "--seq must be at least 1 (got " + std::to_string(q.seq) + ")");
  require(q.micro_batches >= 1, "--micro-batches must be at least 1");
  require(q.ep >= 1, "--ep must be at least 1");
  require(q.prefetch >= 0 && q.prefetch <= 64, "--prefetch must be between 0 and 64");
  require(q.capacity_factor >= 0, "--capacity-factor must not be negative");
  require(!q.pad_to_capacity || q.capacity_factor > 0,
          "--pad-to-capacity needs --capacity-factor > 0");
  require(q.replicate_hot >= 0, "--replicate-hot must not be negative");

  if (q.plan == "fsdp1")
    r.plan = PlanKind::fsdp1;
  else if (q.plan == "fsdp2")
    r.plan = PlanKind::fsdp2;
  else if (q.plan == "ddp")
    r.plan = PlanKind::ddp;
  else
    throw UsageError("unknown --plan '" + q.plan + "' (expected fsdp1, fsdp2 or ddp)");
  r.wrap = parse_wrap(q.wrap);
  r.routing = parse_routing(q.routing);
  const OptimizerChoice optimizer = request_optimizer(q);
  r.optimizer = optimizer.kind;
  r.optimizer_why = optimizer.why;
  const HostTimeSetting host_time = host_time_setting(q.host_time);
  r.host_time = host_time.per_launch;
  r.host_time_source = host_time.source;
  if (q.experts_layout == "per-expert")
    r.stacked_experts = false;
  else if (q.experts_layout == "stacked")
    r.stacked_experts = true;
  else
    throw UsageError("unknown --experts-layout '" + q.experts_layout +
                     "' (expected per-expert or stacked)");
  // grouped: torch._grouped_mm over the stacked tensors (torchtitan; transformers 5.x's
  // grouped_mm experts), so it takes the stacked layout whatever --experts-layout says.
  if (q.experts == "grouped")
    r.grouped_experts = r.stacked_experts = true;
  else if (q.experts != "looped")
    throw UsageError("unknown --experts '" + q.experts + "' (expected looped or grouped)");
  if (q.sharding == "full" || q.sharding == "FULL_SHARD")
    r.full_shard = true;
  else if (q.sharding == "grad-op" || q.sharding == "SHARD_GRAD_OP")
    r.full_shard = false;
  else if (q.sharding == "hybrid" || q.sharding == "HYBRID_SHARD")
    r.hybrid = true;
  else if (q.sharding == "hybrid-zero2" || q.sharding == "_HYBRID_SHARD_ZERO2")
    r.hybrid = true, r.full_shard = false;
  else
    throw UsageError("unknown --sharding '" + q.sharding +
                     "' (expected full, grad-op, hybrid or hybrid-zero2)");
  r.param_dtype = parse_dtype(q.param_dtype);
  r.reduce_dtype = parse_dtype(q.reduce_dtype);
  require(r.param_dtype != DType::fp8 && r.reduce_dtype != DType::fp8,
          "fp8 is for --a2a-dtype only (parameters and reductions stay bf16, fp16 or fp32)");
  resolve_parallelism(r);

  r.model = load_model(q.model, q.catalog_dir);
  const ModelConfig& m = r.model;
  check_model_split(r);
  require(q.layers >= -1 && q.layers <= m.layers, "--layers " + std::to_string(q.layers) +
                                                      " is outside -1.." +
                                                      std::to_string(m.layers) + " for " + m.name);
  r.layers = q.layers < 0 ? static_cast<int>(m.layers) : q.layers;
  const WorkloadRequest& p = r.request;  // --mesh may have set ep and tp
  if (p.ep > 1) {
    require(m.is_moe(), "--ep " + std::to_string(p.ep) + " needs a mixture-of-experts model; " +
                            m.name + " is dense");
    require(m.experts % p.ep == 0, "--ep " + std::to_string(p.ep) + " does not divide the " +
                                       std::to_string(m.experts) + " experts of " + m.name);
    require(q.world % p.ep == 0,
            "--ep " + std::to_string(p.ep) + " does not divide world " + std::to_string(q.world));
  }
  // K hot experts out of K or fewer is no skew at all: every expert would be "hot".
  if (r.routing.kind == RoutingSpec::Kind::hot && m.is_moe())
    require(r.routing.hot_k < m.experts, "bad --routing '" + q.routing + "': K must be below the " +
                                             std::to_string(m.experts) + " experts of " + m.name);
  require(q.replicate_hot == 0 || p.ep > 1, "--replicate-hot needs expert parallelism (--ep > 1)");
  require(q.replicate_hot <= m.experts, "--replicate-hot exceeds the number of experts");

  r.tokens =
      checked_mul(static_cast<std::uint64_t>(q.micro_batch), static_cast<std::uint64_t>(q.seq),
                  "tokens per micro-batch (micro-batch x seq)");
  const std::uint64_t activation_bytes =
      checked_mul(checked_mul(r.tokens, static_cast<std::uint64_t>(m.hidden), "activation size"),
                  dtype_size_bytes(r.param_dtype), "activation bytes");
  if (m.is_moe())
    checked_mul(activation_bytes, static_cast<std::uint64_t>(m.top_k), "routed rows bytes");
  checked_mul(checked_mul(r.tokens, static_cast<std::uint64_t>(m.vocab), "logits size"),
              dtype_size_bytes(r.param_dtype), "logits bytes");
  checked_mul(r.tokens, static_cast<std::uint64_t>(q.micro_batches), "tokens per step");
  return r;
}

GroupKind dense_shard_group(const ResolvedRequest& r) {
  return r.request.tp == 1 && !r.hybrid ? GroupKind::world : GroupKind::shard;
}

GroupKind dense_replica_group(const ResolvedRequest& r) {
  return r.request.tp == 1 && r.shard_group == 1 ? GroupKind::world : GroupKind::replicate;
}

}  // namespace collreplay
