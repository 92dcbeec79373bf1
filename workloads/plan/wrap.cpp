#include "workloads/plan/wrap.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/errors.hpp"

namespace collreplay {
namespace {

bool contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::uint64_t unwrapped_numel(const ModuleTree& t, int node, const std::vector<int>& prewrapped) {
  if (contains(prewrapped, node)) return 0;
  std::uint64_t n = 0;
  for (const ParamTensor& p : t.nodes[node].params) n += p.numel();
  for (int c : t.nodes[node].children) n += unwrapped_numel(t, c, prewrapped);
  return n;
}

// Returns the parameters that ended up inside units at or below `node`.
std::uint64_t recursive_wrap(const ModuleTree& t, int node, std::uint64_t min_params,
                             bool only_wrap_children, const std::vector<int>& prewrapped,
                             std::vector<int>& wrapped) {
  const std::uint64_t nonwrapped = unwrapped_numel(t, node, prewrapped);
  if (nonwrapped < min_params) return 0;
  std::uint64_t in_children = 0;
  for (int c : t.nodes[node].children)
    if (!contains(prewrapped, c))
      in_children += recursive_wrap(t, c, min_params, false, prewrapped, wrapped);
  const std::uint64_t remainder = nonwrapped - in_children;
  if (!only_wrap_children && remainder >= min_params && !t.nodes[node].module_list) {
    wrapped.push_back(node);
    return nonwrapped;
  }
  return in_children;
}

}  // namespace

WrapPolicy parse_wrap(std::string_view text) {
  WrapPolicy p;
  if (text == "block") return p;
  if (text == "submodule") {
    p.kind = WrapPolicy::Kind::submodule;
    return p;
  }
  if (text == "size" || text.substr(0, 5) == "size:") {
    p.kind = WrapPolicy::Kind::size;
    if (text.size() > 5) {
      const std::string n(text.substr(5));
      std::size_t used = 0;
      double value = -1;
      try {
        value = std::stod(n, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != n.size() || !(value >= 1) || value > 9.2e18 || value != std::floor(value))
        throw UsageError("bad --wrap '" + std::string(text) +
                         "': size:N needs a positive whole number of parameters (e.g. size:1e8)");
      p.min_num_params = static_cast<std::uint64_t>(value);
    }
    return p;
  }
  throw UsageError("unknown --wrap '" + std::string(text) +
                   "' (expected block, submodule or size:N)");
}

std::vector<int> choose_units(const ModuleTree& t, const WrapPolicy& policy,
                              const std::vector<int>& prewrapped) {
  std::vector<int> wrapped;
  if (policy.kind == WrapPolicy::Kind::size) {
    recursive_wrap(t, 0, policy.min_num_params, true, prewrapped, wrapped);
  } else {
    for (int id = 0; id < static_cast<int>(t.nodes.size()); ++id) {
      const ModuleNode& n = t.nodes[id];
      const bool sub = policy.kind == WrapPolicy::Kind::submodule && (n.attention || n.mlp);
      if (n.decoder_layer || sub) wrapped.push_back(id);
    }
  }
  for (int p : prewrapped) wrapped.push_back(p);
  std::sort(wrapped.begin(), wrapped.end());  // node ids are in pre-order
  wrapped.erase(std::unique(wrapped.begin(), wrapped.end()), wrapped.end());
  return wrapped;
}

}  // namespace collreplay
