// A rank's memory footprint, computed from its schedule before anything is allocated: what the
// executor, the compute engine, the -c check and the backend's staging will take. Replay
// refuses (exit 2, one line) when it does not fit; --dry-run prints it.
#pragma once
#include <cstdint>
#include <string>

#include "workloads/schedule.hpp"

namespace collreplay {

struct MemoryFootprint {
  bool device = false;                      // collective buffers and GEMM operands on the GPU
  std::uint64_t collective_bytes = 0;       // per group: send + receive, sized to its largest op
  std::uint64_t gemm_operand_bytes = 0;     // host fp32 (largest GEMM) or GPU (see operand_bytes)
  std::uint64_t check_bytes = 0;            // -c: host copies of the largest checked collective
  std::uint64_t backend_scratch_bytes = 0;  // host MPI: a reduction's temporaries, 2 x its send
  std::uint64_t kernel_buffer_bytes = 0;    // what the non-GEMM kernels stream through

  // What must fit in the memory that is checked: the GPU's for a device run, else the host's.
  std::uint64_t checked_bytes() const;
  std::uint64_t host_bytes() const;  // host memory the run takes (all of it on a host run)
};

// Group sizes follow GroupComms: node = gpus_per_node, expert = ep, data_parallel = world / ep.
MemoryFootprint estimate_footprint(const Schedule& schedule, bool device, bool check);

// "2.4 GiB per rank: collective buffers 1.1 GiB, GEMM operands 1.2 GiB (host fp32), ..."
std::string describe_footprint(const MemoryFootprint& footprint);

// The host's MemAvailable (/proc/meminfo), 0 when it cannot be read.
std::uint64_t host_available_bytes();

// What a replay may plan to use of what is available: the rest is left to what the footprint
// does not count (the MPI library's shared-memory segments and eager buffers, NCCL's and CUDA's
// own allocations, the processes' code and heap, the page cache other work needs) so that a run
// the check lets through is not the one the OOM killer ends. Host: 80% of MemAvailable; GPU:
// 90% of cudaMemGetInfo's free bytes (NCCL and cuBLAS allocations made after the check).
std::uint64_t usable_host_bytes(std::uint64_t mem_available_bytes);
std::uint64_t usable_device_bytes(std::uint64_t free_bytes);

// One line for the refusal: "needs X GiB per rank, Y GiB available to each of the N ranks on
// this host; try --layers or fewer ranks per node". `where` is "this host" or "GPU 0".
std::string does_not_fit_message(std::uint64_t needed_bytes, std::uint64_t available_per_rank_bytes,
                                 int ranks_sharing, bool device);

// Collective. Refuses (UsageError, alike on every rank) a run whose buffers would not fit: the
// largest need against the smallest share (host: usable MemAvailable split between the node's
// ranks; GPU: usable free memory of local_device).
void check_memory(const Schedule& schedule, bool device, bool check, int local_device,
                  int ranks_per_node, double timeout_s);

}  // namespace collreplay
