#include "collectives/ops/op_spec.hpp"

#include <string>

#include "collectives/values/check_values.hpp"
#include "collectives/values/host_values.hpp"
#include "common/errors.hpp"

namespace collreplay {

std::string_view placement_name(Placement p) {
  return p == Placement::in_place ? "in_place" : "out_of_place";
}

double algbw_GBps(double bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0; }

double busbw_GBps(double bus_bytes, double seconds) {
  return seconds > 0 ? bus_bytes / seconds / 1e9 : 0;
}

double OpSpec::input_value(const OpLayout& layout, DType t, std::uint64_t seed,
                           std::size_t index) const {
  return check_input(t, check_op(layout), seed, layout.rank, layout.ranks, index);
}

std::vector<P2pCall> OpSpec::p2p_calls(const OpLayout&, const void*, void*, DType) const {
  throw RuntimeError("p2p_calls: " + std::string(name()) + " is not a point-to-point op");
}

std::optional<std::uint64_t> OpSpec::count_wrong_on_device(const OpLayout&, const void*, DType,
                                                           std::uint64_t, void*) const {
  return std::nullopt;
}

std::size_t send_buffer_elements(const OpLayout& layout, Placement p) {
  return p == Placement::in_place ? layout.in_place_elements : layout.send_elements;
}

std::size_t recv_buffer_elements(const OpLayout& layout, Placement p) {
  return p == Placement::in_place ? layout.in_place_elements : layout.recv_elements;
}

void fill_send_buffer(const OpSpec& op, const OpLayout& layout, Placement p, DType t,
                      std::uint64_t seed, void* host_buffer) {
  const std::size_t total = send_buffer_elements(layout, p);
  const std::size_t begin = p == Placement::in_place ? layout.in_place_send_offset : 0;
  const std::size_t end = begin + layout.send_elements;
  const double poison = poison_value(t);
  for (std::size_t i = 0; i < total; ++i)
    store_exact(t, host_buffer, i,
                i >= begin && i < end ? op.input_value(layout, t, seed, i - begin) : poison);
}

void poison_recv_buffer(const OpLayout& layout, DType t, void* host_buffer) {
  const double poison = poison_value(t);
  for (std::size_t i = 0; i < layout.recv_elements; ++i) store_exact(t, host_buffer, i, poison);
}

std::uint64_t count_wrong(const OpSpec& op, const OpLayout& layout, Placement p, DType t,
                          std::uint64_t seed, const void* host_buffer) {
  const std::size_t offset = p == Placement::in_place ? layout.in_place_recv_offset : 0;
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < layout.recv_elements; ++i)
    if (load_exact(t, host_buffer, offset + i) != op.expected_value(layout, t, seed, i)) ++wrong;
  return wrong;
}

}  // namespace collreplay
