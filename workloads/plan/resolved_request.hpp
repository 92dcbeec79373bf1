// A WorkloadRequest checked and parsed: every string choice turned into its enum, the model
// loaded, the products that size buffers computed with overflow checks.
#pragma once
#include <cstdint>
#include <string>

#include "common/dtype.hpp"
#include "workloads/model/model.hpp"
#include "workloads/plan/step/host_time.hpp"
#include "workloads/plan/moe_routing.hpp"
#include "workloads/plan/step/optimizer_step.hpp"
#include "workloads/plan/request.hpp"
#include "workloads/plan/wrap.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

enum class PlanKind { fsdp1, fsdp2, ddp };

struct ResolvedRequest {
  WorkloadRequest request;
  ModelConfig model;
  PlanKind plan = PlanKind::fsdp1;
  WrapPolicy wrap;
  RoutingSpec routing;
  bool stacked_experts = false;
  bool grouped_experts = false;  // --experts grouped: one grouped GEMM per projection
  bool full_shard = true;  // FULL_SHARD (reshard after forward) vs SHARD_GRAD_OP
  bool hybrid = false;     // HSDP: shard within shard_group, all-reduce across replicas
  int shard_group = 1;     // dense FSDP shard group (ranks with one TP index)
  int replicas = 1;        // world / (shard_group * tp)
  int powersgd_rank = 0;   // ddp --grad-compression powersgd:R (0: none)
  bool hierarchical_a2a = false;
  DType dispatch_dtype = DType::bf16, combine_dtype = DType::bf16;
  DType param_dtype = DType::bf16;
  DType reduce_dtype = DType::bf16;
  std::uint64_t tokens = 0;  // tokens per rank per micro-batch
  OptimizerKind optimizer = OptimizerKind::adamw_foreach;
  std::string optimizer_why;  // why --optimizer picked it (optimizer_step.hpp)
  HostTimePerLaunch host_time = kEagerHostTime;
  std::string host_time_source = kEagerHostTimeSource;  // --host-time's figures, in words
  int layers = 0;            // decoder layers modelled
};

// The group dense weights are sharded over (world when that is every rank) and the group their
// HSDP / DDP all-reduce runs over.
GroupKind dense_shard_group(const ResolvedRequest& r);
GroupKind dense_replica_group(const ResolvedRequest& r);

// The optimizer the request asks for, and why (auto: torch's default for its parameters).
OptimizerChoice request_optimizer(const WorkloadRequest& request);

// Throws UsageError with one line naming the problem.
ResolvedRequest resolve_request(const WorkloadRequest& request);

}  // namespace collreplay
