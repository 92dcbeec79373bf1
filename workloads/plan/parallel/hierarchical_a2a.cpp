#include "workloads/plan/parallel/hierarchical_a2a.hpp"

#include <algorithm>
#include <functional>

#include "common/sizes.hpp"

namespace collreplay {

std::vector<A2aStage> hierarchical_a2a_stages(const std::vector<std::vector<std::uint64_t>>& rows,
                                              int me, int local) {
  const int members = static_cast<int>(rows.size()), nodes = members / local;
  const auto node = [&](int e) { return e / local; };
  const auto index = [&](int e) { return e % local; };
  const auto at = [&](int n, int i) { return n * local + i; };
  // Rows member p holds for node b (any member there).
  const auto to_node = [&](int p, int b) {
    std::uint64_t sum = 0;
    for (int k = 0; k < local; ++k) sum += rows[p][at(b, k)];
    return sum;
  };
  // Stage matrices as functions of (sender, receiver) member indices; zero outside the group.
  const std::function<std::uint64_t(int, int)> stage[3] = {
      [&](int p, int q) {
        if (node(p) != node(q)) return std::uint64_t{0};
        std::uint64_t sum = rows[p][q];
        for (int b = 0; b < nodes; ++b)
          if (b != node(p) && b % local == index(q)) sum += to_node(p, b);
        return sum;
      },
      [&](int p, int q) {
        if (index(p) != index(q) || node(p) == node(q) || node(q) % local != index(q))
          return std::uint64_t{0};
        std::uint64_t sum = 0;
        for (int i = 0; i < local; ++i) sum += to_node(at(node(p), i), node(q));
        return sum;
      },
      [&](int p, int q) {
        if (node(p) != node(q) || index(p) != node(p) % local) return std::uint64_t{0};
        std::uint64_t sum = 0;
        for (int a = 0; a < nodes; ++a)
          if (a != node(q))
            for (int i = 0; i < local; ++i) sum += rows[at(a, i)][q];
        return sum;
      }};
  const char* names[3] = {"gather", "rail", "scatter"};
  std::vector<A2aStage> out;
  for (int s = 0; s < 3; ++s) {
    A2aStage st{names[s], s == 1 ? GroupKind::expert_rail : GroupKind::expert_node, {}, {}};
    // Peers in group order: the node's members by local index, or the rail's by node.
    for (int k = 0; k < (s == 1 ? nodes : local); ++k) {
      const int peer = s == 1 ? at(k, index(me)) : at(node(me), k);
      st.send_rows.push_back(stage[s](me, peer));
      st.recv_rows.push_back(stage[s](peer, me));
    }
    out.push_back(std::move(st));
  }
  return out;
}

CollectiveOp rows_all_to_all(const std::vector<std::uint64_t>& send_rows,
                             const std::vector<std::uint64_t>& recv_rows,
                             std::uint64_t row_elements, DType dtype, GroupKind group,
                             bool fixed_allowed) {
  CollectiveOp op;
  op.dtype = dtype;
  op.group = group;
  std::uint64_t total = 0;
  for (std::uint64_t rows : send_rows)
    total = checked_add(total, checked_mul(rows, row_elements, "all-to-all elements"),
                        "all-to-all elements");
  op.bytes = checked_mul(total, dtype_size_bytes(dtype), "all-to-all bytes");
  const auto equal = [](const std::vector<std::uint64_t>& v) {
    return std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) == v.end();
  };
  const bool fixed = fixed_allowed && equal(send_rows) && equal(recv_rows);
  op.kind = fixed ? CollectiveKind::all_to_all : CollectiveKind::all_to_allv;
  if (!fixed)
    for (std::size_t p = 0; p < send_rows.size(); ++p) {
      op.send_counts.push_back(send_rows[p] * row_elements);
      op.recv_counts.push_back(checked_mul(recv_rows[p], row_elements, "all-to-all elements"));
    }
  return op;
}

}  // namespace collreplay
