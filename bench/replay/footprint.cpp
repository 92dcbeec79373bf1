#include "bench/replay/footprint.hpp"

#include "collectives/mpi/mpi_watched.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "bench/compute/compute_cublas.hpp"
#include "bench/compute/launch_order.hpp"
#include "bench/compute/operand_bytes.hpp"
#include "bench/executor/collective_plan.hpp"
#include "bench/executor/p2p_groups.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {
namespace {

std::string gib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  return text;
}

}  // namespace

std::uint64_t MemoryFootprint::host_bytes() const {
  return device ? check_bytes
                : collective_bytes + gemm_operand_bytes + check_bytes + backend_scratch_bytes +
                      kernel_buffer_bytes;
}

std::uint64_t MemoryFootprint::checked_bytes() const {
  return device ? collective_bytes + gemm_operand_bytes + backend_scratch_bytes + kernel_buffer_bytes
                : host_bytes();
}

MemoryFootprint estimate_footprint(const Schedule& schedule, bool device, bool check) {
  MemoryFootprint f;
  f.device = device;
  std::map<GroupKey, std::pair<std::uint64_t, std::uint64_t>> buffers;  // send, recv
  std::vector<PreparedCollective> calls;
  std::vector<int> collective_of_op(schedule.ops.size(), -1);
  std::vector<GemmShape> shapes;
  DType compute_dtype = DType::bf16;
  std::uint64_t kernel_launch_bytes = 0;
  bool kernels = false;
  for (std::size_t i = 0; i < schedule.ops.size(); ++i) {
    const ScheduleOp& op = schedule.ops[i];
    if (!op.is_collective()) {
      shapes.insert(shapes.end(), op.compute().gemms.begin(), op.compute().gemms.end());
      if (!op.compute().gemms.empty()) compute_dtype = op.compute().dtype;
      kernels = kernels || !op.compute().kernels.empty();
      kernel_launch_bytes =
          std::max(kernel_launch_bytes, largest_kernel_launch_bytes(op.compute()));
      continue;
    }
    collective_of_op[i] = static_cast<int>(calls.size());
    calls.push_back(prepare_collective(op, static_cast<int>(i),
                                       collective_group_size(schedule, op.collective())));
  }
  // As the executor plans them: the ops of a p2p group each get their own part of the buffers.
  const P2pGroups p2p(schedule, collective_of_op, calls);
  for (const PreparedCollective& call : calls) {
    auto& [send, recv] = buffers[call.key];
    send = std::max(send, call.send_offset_bytes + call.send_bytes);
    recv = std::max(recv, call.recv_offset_bytes + call.recv_bytes);
    if (check) f.check_bytes = std::max(f.check_bytes, call.send_bytes + call.recv_bytes);
    const bool reduces =
        call.kind == CollectiveKind::reduce_scatter || call.kind == CollectiveKind::all_reduce;
    // Host MPI reductions keep temporaries inside the library: up to twice the send buffer
    // (OpenMPI's libnbc reduce_scatter_block holds two of its size on the root).
    if (!device && reduces)
      f.backend_scratch_bytes = std::max(f.backend_scratch_bytes, 2 * call.send_bytes);
  }
  for (const auto& [group, pair] : buffers) f.collective_bytes += pair.first + pair.second;
  f.gemm_operand_bytes =
      device ? device_gemm_operand_bytes(shapes, compute_dtype) : host_gemm_operand_bytes(shapes);
  if (kernels) f.kernel_buffer_bytes = kernel_buffer_bytes(kernel_launch_bytes, device);
  return f;
}

std::string describe_footprint(const MemoryFootprint& f) {
  std::string text = gib(f.checked_bytes()) + (f.device ? " of GPU memory" : " of host memory") +
                     " per rank: collective buffers " + gib(f.collective_bytes) +
                     ", GEMM operands " + gib(f.gemm_operand_bytes) +
                     (f.device ? " (GPU)" : " (host fp32)");
  if (f.kernel_buffer_bytes) text += ", kernel buffers " + gib(f.kernel_buffer_bytes);
  if (f.backend_scratch_bytes) text += ", MPI reduction scratch " + gib(f.backend_scratch_bytes);
  if (f.check_bytes) text += ", -c check copies " + gib(f.check_bytes) + " (host)";
  return text;
}

std::uint64_t host_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

std::uint64_t usable_host_bytes(std::uint64_t mem_available_bytes) {
  return mem_available_bytes / 10 * 8;
}

std::uint64_t usable_device_bytes(std::uint64_t free_bytes) { return free_bytes / 10 * 9; }

std::string does_not_fit_message(std::uint64_t needed_bytes, std::uint64_t available_per_rank_bytes,
                                 int ranks_sharing, bool device) {
  if (device)
    return "needs " + gib(needed_bytes) + " of GPU memory per rank, " +
           gib(available_per_rank_bytes) + " free on its GPU; try --layers or a shorter --seq";
  return "needs " + gib(needed_bytes) + " per rank, " + gib(available_per_rank_bytes) +
         " available to each of the " + std::to_string(ranks_sharing) +
         " ranks on this host; try --layers or fewer ranks per node";
}

// Refuses, alike on every rank, a run whose buffers would not fit: the largest need against the
// smallest share (host: usable MemAvailable split between the node's ranks; GPU: usable free
// memory; see footprint.hpp).
void check_memory(const Schedule& schedule, bool device, bool check, int local_device,
                  int ranks_per_node, double timeout_s) {
  const MemoryFootprint footprint = estimate_footprint(schedule, device, check);
  const double available =
      device ? static_cast<double>(usable_device_bytes(device_free_bytes(local_device)))
             : static_cast<double>(usable_host_bytes(host_available_bytes())) /
                   std::max(ranks_per_node, 1);
  const double needed =
      max_across_ranks(MPI_COMM_WORLD, static_cast<double>(footprint.checked_bytes()), timeout_s);
  const double smallest = min_across_ranks(MPI_COMM_WORLD, available, timeout_s);
  if (smallest > 0 && needed > smallest)
    throw UsageError(does_not_fit_message(static_cast<std::uint64_t>(needed),
                                          static_cast<std::uint64_t>(smallest), ranks_per_node,
                                          device));
}

}  // namespace collreplay
