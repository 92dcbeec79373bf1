// The checks and derived sizes of the parallelism beyond plain FSDP: --mesh, --tp, hybrid
// sharding, DDP bucketing and compression, the all-to-all form and its dtypes. Each throws
// UsageError with one line naming the flag.
#pragma once
#include "workloads/plan/resolved_request.hpp"

namespace collreplay {

// Before the model is read: --mesh (sets ep and tp in r.request), --tp against world and GPUs
// per node, --shard-group, --plan ddp options, --a2a and its dtypes.
void resolve_parallelism(ResolvedRequest& r);

// After: tp against heads, KV heads, intermediate, vocab and the tokens sequence parallel shards.
void check_model_split(const ResolvedRequest& r);

}  // namespace collreplay
