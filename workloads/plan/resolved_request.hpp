// A WorkloadRequest checked and parsed: every string choice turned into its enum, the model
// loaded, the products that size buffers computed with overflow checks.
#pragma once
#include <cstdint>

#include "common/dtype.hpp"
#include "workloads/model/model.hpp"
#include "workloads/plan/moe_routing.hpp"
#include "workloads/plan/request.hpp"
#include "workloads/plan/wrap.hpp"

namespace collreplay {

enum class PlanKind { fsdp1, fsdp2 };

struct ResolvedRequest {
  WorkloadRequest request;
  ModelConfig model;
  PlanKind plan = PlanKind::fsdp1;
  WrapPolicy wrap;
  RoutingSpec routing;
  bool stacked_experts = false;
  bool full_shard = true;           // FULL_SHARD (reshard after forward) vs SHARD_GRAD_OP
  DType param_dtype = DType::bf16;
  DType reduce_dtype = DType::bf16;
  std::uint64_t tokens = 0;         // tokens per rank per micro-batch
  int layers = 0;                   // decoder layers modelled
};

// Throws UsageError with one line naming the problem.
ResolvedRequest resolve_request(const WorkloadRequest& request);

}  // namespace collreplay
