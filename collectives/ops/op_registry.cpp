#include "collectives/ops/op_registry.hpp"

#include <memory>
#include <span>
#include <string>

#include "common/errors.hpp"

namespace collreplay {
namespace {

// One line per op. Built once on first use; the specs are stateless.
std::span<const std::unique_ptr<OpSpec>> specs() {
  static const std::unique_ptr<OpSpec> kSpecs[] = {
      make_all_gather_spec(),  make_reduce_scatter_spec(), make_all_to_all_spec(),
      make_all_to_allv_spec(), make_all_reduce_spec(),     make_broadcast_spec(),
      make_send_recv_spec(),   make_send_spec(),           make_recv_spec(),
  };
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
  for (const auto& spec : specs())
    if (spec->kind() == kind) return *spec;
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

std::string_view collective_kind_name(CollectiveKind kind) { return op_spec(kind).name(); }
SizeBasis size_basis(CollectiveKind kind) { return op_spec(kind).size_basis(); }

std::vector<CollectiveKind> collective_kinds() {
  std::vector<CollectiveKind> kinds;
  for (const auto& spec : specs()) kinds.push_back(spec->kind());
  return kinds;
}

}  // namespace collreplay
