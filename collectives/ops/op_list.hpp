// The collectives collreplay knows, one line each: the one place an op's identity is written.
// The line `X(broadcast)` makes the value CollectiveKind::broadcast (collective_kind.hpp), its
// name "broadcast" (as in results, schedules and the executables' --op), and the registry entry
// built by make_broadcast_spec(), which collectives/ops/broadcast.cpp defines with every other
// fact of the op (OpSpec). The order is the registry's: the order ops are listed and known in.
// Standard library only (no includes): workloads/ reads it without MPI or CUDA.
#pragma once

// X(op) for every op; op is both the enum value and the name.
#define COLLREPLAY_FOR_EACH_OP(X) \
  X(all_gather)                   \
  X(reduce_scatter)               \
  X(all_to_all)                   \
  X(all_to_allv)                  \
  X(all_reduce)                   \
  X(broadcast)                    \
  X(send_recv)                    \
  X(send)                         \
  X(recv)
