#include "collectives/ops/op_registry.hpp"

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/errors.hpp"

namespace collreplay {
namespace {

// One spec per line of op_list.hpp, in its order. Built once on first use; the specs are
// stateless. A spec that names another kind than its line is a mistake in its file, caught here.
std::span<const std::unique_ptr<OpSpec>> specs() {
  static const auto kSpecs = [] {
    std::vector<std::unique_ptr<OpSpec>> made;
#define COLLREPLAY_MAKE_SPEC(op)                                                        \
  made.push_back(make_##op##_spec());                                                   \
  if (made.back()->kind() != CollectiveKind::op)                                        \
    throw RuntimeError("make_" #op "_spec() makes the spec of another collective kind");
    COLLREPLAY_FOR_EACH_OP(COLLREPLAY_MAKE_SPEC)
#undef COLLREPLAY_MAKE_SPEC
    return made;
  }();
  return kSpecs;
}

// "all_to_all" and "alltoall" (nccl-tests' executable spelling) name the same op.
bool same_name(std::string_view op_name, std::string_view asked) {
  std::string bare(op_name);
  std::erase(bare, '_');
  return asked == op_name || asked == bare;
}

}  // namespace

const OpSpec& op_spec(CollectiveKind kind) {
  const auto at = static_cast<std::size_t>(kind);
  if (at < specs().size()) return *specs()[at];  // in op_list.hpp's order, as the enum
  throw RuntimeError("no op spec for collective kind " + std::to_string(static_cast<int>(kind)));
}

const OpSpec& find_op(std::string_view name) {
  std::string known;
  for (const auto& spec : specs()) {
    if (same_name(spec->name(), name)) return *spec;
    known += (known.empty() ? "" : ", ") + std::string(spec->name());
  }
  throw UsageError("unknown collective '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<const OpSpec*> all_ops() {
  std::vector<const OpSpec*> ops;
  for (const auto& spec : specs()) ops.push_back(spec.get());
  return ops;
}

SizeBasis size_basis(CollectiveKind kind) { return op_spec(kind).size_basis(); }
bool is_point_to_point(CollectiveKind kind) { return op_spec(kind).point_to_point(); }

std::vector<CollectiveKind> collective_kinds() {
  std::vector<CollectiveKind> kinds;
  for (const auto& spec : specs()) kinds.push_back(spec->kind());
  return kinds;
}

}  // namespace collreplay
