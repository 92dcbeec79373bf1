#include "collectives/ops/op_registry.hpp"

#include <array>
#include <string>

#include "common/errors.hpp"

namespace collreplay {
namespace {

// Built once on first use; the specs are stateless.
const std::array<std::unique_ptr<OpSpec>, 5>& specs() {
  static const std::array<std::unique_ptr<OpSpec>, 5> kSpecs = {
      make_all_gather_spec(), make_reduce_scatter_spec(), make_all_to_all_spec(),
      make_all_to_allv_spec(), make_all_reduce_spec()};
  return kSpecs;
}

std::string_view canonical(std::string_view name) {
  if (name == "alltoall") return "all_to_all";
  if (name == "alltoallv") return "all_to_allv";
  if (name == "allgather") return "all_gather";
  if (name == "reducescatter") return "reduce_scatter";
  if (name == "allreduce") return "all_reduce";
  return name;
}

}  // namespace

const OpSpec& find_op(std::string_view name) {
  std::string known;
  for (const auto& spec : specs()) {
    if (spec->name() == canonical(name)) return *spec;
    known += (known.empty() ? "" : ", ") + std::string(spec->name());
  }
  throw UsageError("unknown collective '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<const OpSpec*> all_ops() {
  std::vector<const OpSpec*> ops;
  for (const auto& spec : specs()) ops.push_back(spec.get());
  return ops;
}

}  // namespace collreplay
