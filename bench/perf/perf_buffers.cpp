#include "bench/perf/perf_buffers.hpp"

#include <optional>
#include <vector>

#include "bench/app/cross_rank.hpp"
#include "collectives/device/device_pattern.hpp"
#include "collectives/mpi/mpi_watched.hpp"
#include "collectives/values/check_values.hpp"

namespace collreplay {
namespace {

char* at(void* base, std::size_t elements, DType t) {
  return static_cast<char*>(base) + elements * dtype_size_bytes(t);
}

// Device kernels fill and check where they know the dtype and the check is a plain copy or sum
// of the fill (check_values.hpp); everything else is filled and checked on the host, through a
// staging copy when the buffers live on the GPU.
bool on_device(const PerfContext& ctx, const OpLayout& layout) {
  const DType t = ctx.options.dtype;
  return ctx.comm.device_buffers() && ctx.comm.native_stream() != nullptr &&
         device_pattern_supports(t) && plain_fill_check(t, ctx.op.check_op(layout), layout.ranks);
}

// The input is OpSpec's default (fill_value of this rank), as fill_send_buffer writes it.
void prepare_on_device(PerfContext& ctx, const OpLayout& layout, Placement p) {
  const DType t = ctx.options.dtype;
  void* stream = ctx.comm.native_stream();
  const auto poison = static_cast<float>(poison_value(t));
  const std::size_t total = send_buffer_elements(layout, p);
  const std::size_t begin = p == Placement::in_place ? layout.in_place_send_offset : 0;
  const std::size_t end = begin + layout.send_elements;
  device_fill_constant(ctx.buffer_a, begin, t, poison, stream);
  device_fill(at(ctx.buffer_a, begin, t), layout.send_elements, t, ctx.options.seed, layout.rank,
              0, stream);
  device_fill_constant(at(ctx.buffer_a, end, t), total - end, t, poison, stream);
  if (p == Placement::out_of_place)
    device_fill_constant(ctx.buffer_b, layout.recv_elements, t, poison, stream);
}

void prepare_on_host(PerfContext& ctx, const OpLayout& layout, Placement p) {
  const DType t = ctx.options.dtype;
  const std::size_t es = dtype_size_bytes(t);
  const auto fill = [&](void* buffer, std::size_t elements, auto&& write) {
    if (!ctx.comm.device_buffers()) return write(buffer);
    ctx.staging.resize(elements * es);
    write(ctx.staging.data());
    ctx.comm.copy_from_host(buffer, ctx.staging.data(), elements * es);
  };
  fill(ctx.buffer_a, send_buffer_elements(layout, p),
       [&](void* host) { fill_send_buffer(ctx.op, layout, p, t, ctx.options.seed, host); });
  if (p == Placement::out_of_place)
    fill(ctx.buffer_b, layout.recv_elements,
         [&](void* host) { poison_recv_buffer(layout, t, host); });
}

}  // namespace

void prepare_buffers(PerfContext& ctx, const OpLayout& layout, Placement p) {
  if (on_device(ctx, layout))
    prepare_on_device(ctx, layout, p);
  else
    prepare_on_host(ctx, layout, p);
}

std::uint64_t check_result(PerfContext& ctx, const OpLayout& layout, Placement p,
                           const std::string& label) {
  prepare_buffers(ctx, layout, p);
  void* send = ctx.buffer_a;
  void* recv = p == Placement::in_place ? ctx.buffer_a : ctx.buffer_b;
  ctx.op.issue(ctx.comm, layout, send, recv, ctx.options.dtype);
  ctx.comm.wait_all(label + ", checked run");
  const DType t = ctx.options.dtype;
  const void* result = p == Placement::in_place ? at(recv, layout.in_place_recv_offset, t) : recv;
  std::optional<std::uint64_t> wrong;
  if (on_device(ctx, layout))
    wrong = ctx.op.count_wrong_on_device(layout, result, t, ctx.options.seed,
                                         ctx.comm.native_stream());
  if (!wrong) {
    const std::size_t bytes = recv_buffer_elements(layout, p) * dtype_size_bytes(t);
    const void* host = recv;
    if (ctx.comm.device_buffers()) {
      ctx.staging.resize(bytes);
      ctx.comm.copy_to_host(ctx.staging.data(), recv, bytes);
      host = ctx.staging.data();
    }
    wrong = count_wrong(ctx.op, layout, p, t, ctx.options.seed, host);
  }
  all_reduce_in_place(MPI_COMM_WORLD, &*wrong, 1, MPI_UINT64_T, MPI_SUM,
                      ctx.options.timeout_seconds, label + ", the count of wrong elements");
  return *wrong;
}

}  // namespace collreplay
