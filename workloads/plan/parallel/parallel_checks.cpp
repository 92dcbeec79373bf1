#include "workloads/plan/parallel/parallel_checks.hpp"

#include <cmath>
#include <string>

#include "common/errors.hpp"
#include "workloads/plan/distopt/distributed_optimizer.hpp"
#include "workloads/plan/parallel/mesh.hpp"

namespace collreplay {
namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw UsageError(message);
}

std::string str(long long v) { return std::to_string(v); }

DType a2a_dtype(const std::string& text, DType fallback, const char* flag) {
  if (text.empty()) return fallback;
  const DType t = parse_dtype(text);
  require(t != DType::f32, std::string(flag) + " must be bf16, fp16 or fp8 (got " + text + ")");
  return t;
}

}  // namespace

void resolve_parallelism(ResolvedRequest& r) {
  WorkloadRequest& q = r.request;
  if (!q.mesh.empty()) {
    const MeshDims d = parse_mesh(q.mesh);
    require(static_cast<long long>(d.dp) * d.ep * d.tp == q.world,
            "--mesh " + q.mesh + " has " + str(static_cast<long long>(d.dp) * d.ep * d.tp) +
                " ranks, but the world is " + str(q.world));
    require(q.ep == 1 || q.ep == d.ep, "--ep " + str(q.ep) + " contradicts --mesh " + q.mesh);
    require(q.tp == 1 || q.tp == d.tp, "--tp " + str(q.tp) + " contradicts --mesh " + q.mesh);
    q.ep = d.ep;
    q.tp = d.tp;
  }
  require(q.tp >= 1, "--tp must be at least 1");
  require(q.world % q.tp == 0, "--tp " + str(q.tp) + " does not divide world " + str(q.world));
  require(q.gpus_per_node % q.tp == 0 || q.tp == 1,
          "--tp " + str(q.tp) + " does not divide the " + str(q.gpus_per_node) +
              " GPUs per node (tensor parallelism stays within a node)");
  require(q.tp == 1 || q.world % (q.ep * q.tp) == 0,
          "--ep " + str(q.ep) + " x --tp " + str(q.tp) + " does not divide world " + str(q.world));
  require(q.tp > 1 || !q.async_tp, "--async-tp needs --tp > 1");
  require(q.loss == "eager" || q.loss == "fused",
          "--loss '" + q.loss + "': expected eager or fused");
  require(q.tp_style == "auto" || q.tp_style == "torch" || q.tp_style == "megatron",
          "--tp-style '" + q.tp_style + "': expected auto, torch or megatron");

  const int dp = q.world / q.tp;  // dense data-parallel ranks (same TP index)
  if (r.hybrid) {
    require(r.plan != PlanKind::ddp,
            "--sharding " + q.sharding + " is an FSDP sharding; --plan ddp replicates");
    require(q.ep == 1, "--sharding " + q.sharding + " with --ep > 1 is not modelled");
    r.shard_group = q.shard_group > 0 ? q.shard_group : std::max(1, q.gpus_per_node / q.tp);
    require(q.shard_group >= 0, "--shard-group must be at least 1");
    require(dp % r.shard_group == 0, "--shard-group " + str(r.shard_group) +
                                         " does not divide the " + str(dp) +
                                         " data-parallel ranks");
  } else {
    require(q.shard_group == 0, "--shard-group needs --sharding hybrid or hybrid-zero2");
    r.shard_group = r.plan == PlanKind::ddp ? 1 : dp;
  }
  r.replicas = dp / r.shard_group;

  require(q.bucket_cap_mb > 0 && q.bucket_cap_mb <= 1e6, "--bucket-cap-mb must be in (0, 1e6]");
  if (q.grad_compression != "none") {
    const std::string prefix = "powersgd:";
    const std::string rank =
        q.grad_compression.substr(std::min(prefix.size(), q.grad_compression.size()));
    const bool ok = q.grad_compression.rfind(prefix, 0) == 0 && !rank.empty() && rank.size() <= 6 &&
                    rank.find_first_not_of("0123456789") == std::string::npos &&
                    std::stoi(rank) >= 1;
    require(ok, "bad --grad-compression '" + q.grad_compression +
                    "' (expected none or powersgd:R, R >= 1)");
    require(r.plan == PlanKind::ddp, "--grad-compression needs --plan ddp");
    r.powersgd_rank = std::stoi(rank);
  }
  check_distributed_optimizer(r);
  require(r.plan != PlanKind::ddp || q.ep == 1, "--plan ddp with --ep > 1 is not modelled");
  require(r.plan != PlanKind::ddp || q.sharding == "full",
          "--sharding does not apply to --plan ddp");

  if (q.a2a == "hierarchical")
    r.hierarchical_a2a = true;
  else
    require(q.a2a == "flat", "unknown --a2a '" + q.a2a + "' (expected flat or hierarchical)");
  if (r.hierarchical_a2a) {
    require(q.ep > 1, "--a2a hierarchical needs expert parallelism (--ep > 1)");
    const MeshLayout m{q.world, q.gpus_per_node, q.tp, q.ep, 0};
    require(m.expert_local() > 1 && q.gpus_per_node > 1,
            "--a2a hierarchical needs more than one rank of an expert group per node (" +
                str(q.gpus_per_node) + " GPUs per node / tp " + str(q.tp) + ")");
    require(q.ep % m.expert_local() == 0 && q.ep > m.expert_local(),
            "--a2a hierarchical needs an expert group spanning whole nodes (ep " + str(q.ep) +
                " is not a multiple above " + str(m.expert_local()) + " ranks per node)");
  }
  r.dispatch_dtype = a2a_dtype(q.a2a_dtype, r.param_dtype, "--a2a-dtype");
  r.combine_dtype = a2a_dtype(q.a2a_combine_dtype, r.param_dtype, "--a2a-combine-dtype");
}

void check_model_split(const ResolvedRequest& r) {
  const int tp = r.request.tp;
  if (tp == 1) return;
  const ModelConfig& m = r.model;
  const auto divides = [&](std::int64_t n, const char* what) {
    require(n % tp == 0,
            "--tp " + str(tp) + " does not divide the " + str(n) + " " + what + " of " + m.name);
  };
  divides(m.heads, "attention heads");
  divides(m.kv_heads, "KV heads");
  divides(m.intermediate, "intermediate size");
  if (m.is_moe()) divides(m.expert_intermediate, "expert intermediate size");
  if (m.shared_intermediate > 0) divides(m.shared_intermediate, "shared expert intermediate size");
  divides(m.vocab, "vocabulary entries");

  const std::int64_t tokens = r.request.micro_batch * r.request.seq;
  require(!r.request.sequence_parallel || tokens % tp == 0,
          "sequence parallelism splits the " + str(tokens) + " tokens of a micro-batch over --tp " +
              str(tp) + ", which does not divide them");
}

}  // namespace collreplay
