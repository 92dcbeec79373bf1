// Reads a saved schedule (schema in workloads/SCHEDULE.md) and validates every field, naming the
// JSON path of the first problem; the writers are in schedule_json.cpp.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "collectives/ops/op_registry.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "workloads/grouped_gemm.hpp"
#include "workloads/model/gemm_slices.hpp"
#include "workloads/plan/parallel/mesh.hpp"
#include "workloads/schedule_json.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {
namespace {

using nlohmann::json;
// Reads fields and names the JSON path of the first problem.
class Reader {
 public:
  explicit Reader(std::string_view origin) : origin_(origin) {}
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw UsageError("schedule " + origin_ + ": " + where + " " + what);
  }
  const json& get(const json& j, const char* key, const std::string& where) const {
    if (!j.is_object()) fail(where, "is not an object");
    auto it = j.find(key);
    if (it == j.end()) fail(where, std::string("has no field '") + key + "'");
    return *it;
  }
  std::int64_t integer(const json& j, const char* key, const std::string& where,
                       std::int64_t min) const {
    const json& v = get(j, key, where);
    if (!v.is_number_integer()) fail(where + "." + key, "is not an integer");
    const std::int64_t x =
        v.is_number_unsigned() && v.get<std::uint64_t>() > (std::uint64_t{1} << 62)
            ? (fail(where + "." + key, "is too large"), 0)
            : v.get<std::int64_t>();
    if (x < min) fail(where + "." + key, "must be at least " + std::to_string(min));
    return x;
  }
  std::uint64_t count(const json& v, const std::string& where) const {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
      fail(where, "is not a non-negative integer");
    const std::uint64_t x = v.get<std::uint64_t>();
    if (x > (std::uint64_t{1} << 62)) fail(where, "is too large");
    return x;
  }
  double number(const json& j, const char* key, const std::string& where) const {
    const json& v = get(j, key, where);
    if (!v.is_number() || v.get<double>() < 0)
      fail(where + "." + key, "is not a non-negative number");
    return v.get<double>();
  }
  bool flag(const json& j, const char* key, const std::string& where) const {
    const json& v = get(j, key, where);
    if (!v.is_boolean()) fail(where + "." + key, "is not true or false");
    return v.get<bool>();
  }
  std::string text(const json& j, const char* key, const std::string& where) const {
    const json& v = get(j, key, where);
    if (!v.is_string()) fail(where + "." + key, "is not a string");
    return v.get<std::string>();
  }
  const json& array(const json& j, const char* key, const std::string& where) const {
    const json& v = get(j, key, where);
    if (!v.is_array()) fail(where + "." + key, "is not an array");
    return v;
  }
  template <class Values, class NameOf>
  auto choice(const json& j, const char* key, const std::string& where, const Values& values,
              NameOf name) const {
    const std::string t = text(j, key, where);
    std::string known;
    for (auto e : values) {
      if (t == std::string_view(name(e))) return e;
      known += (known.empty() ? "" : ", ") + std::string(name(e));
    }
    fail(where + "." + key, "'" + t + "' is not one of " + known);
  }

 private:
  std::string origin_;
};

constexpr StreamKind kStreams[] = {StreamKind::comm, StreamKind::compute};
constexpr Phase kPhases[] = {Phase::forward, Phase::backward, Phase::recompute, Phase::optimizer};
constexpr const GroupKind (&kGroups)[std::size(kAllGroupKinds)] = kAllGroupKinds;
constexpr DType kDTypes[] = {DType::bf16, DType::f16, DType::f32};  // GEMMs
constexpr DType kCollectiveDTypes[] = {DType::bf16, DType::f16, DType::f32, DType::fp8};

// group_size and group_stride of a strided group: they must tile the world.
void read_group_shape(const Reader& r, const json& j, const std::string& where, const Schedule& s,
                      CollectiveOp& c) {
  const bool strided = c.group == GroupKind::strided;
  if (!strided) {
    if (j.contains("group_size") || j.contains("group_stride"))
      r.fail(where, "has group_size/group_stride but its group is not strided");
    return;
  }
  const std::int64_t size = r.integer(j, "group_size", where, 1);
  const std::int64_t stride =
      j.contains("group_stride") ? r.integer(j, "group_stride", where, 1) : 1;
  if (size > s.world || stride > s.world || size * stride > s.world)  // before the int casts
    r.fail(where, "group_size x group_stride (" + std::to_string(size) + " x " +
                      std::to_string(stride) + ") is larger than world " + std::to_string(s.world));
  c.group_size = static_cast<int>(size);
  c.group_stride = static_cast<int>(stride);
  const std::string problem = strided_group(c).problem(s.world);
  if (!problem.empty()) r.fail(where, problem);
}

// broadcast's root and send's / recv's peer: ranks of the op's group of n.
void read_root_and_peer(const Reader& r, const json& j, const std::string& where, CollectiveOp& c,
                        int n) {
  const bool p2p = op_spec(c.kind).needs_partner(), rooted = op_spec(c.kind).has_root();
  if (!rooted && j.contains("root")) r.fail(where, "has a root but is not a broadcast");
  if (!p2p && j.contains("peer")) r.fail(where, "has a peer but is not a send or recv");
  if (rooted) {
    const std::int64_t root = j.contains("root") ? r.integer(j, "root", where, 0) : 0;
    if (root >= n)
      r.fail(where + ".root",
             std::to_string(root) + " is not a rank of its group of " + std::to_string(n));
    c.root = static_cast<int>(root);
  }
  if (p2p) {
    const std::int64_t peer = r.integer(j, "peer", where, 0);
    if (peer >= n)
      r.fail(where + ".peer",
             std::to_string(peer) + " is not a rank of its group of " + std::to_string(n));
    c.peer = static_cast<int>(peer);
  }
}

CollectiveOp read_collective(const Reader& r, const json& j, const std::string& where,
                             const Schedule& s) {
  CollectiveOp c;
  c.kind = r.choice(j, "kind", where, collective_kinds(), collective_kind_name);
  c.dtype = r.choice(j, "dtype", where, kCollectiveDTypes, dtype_name);
  if (c.dtype == DType::fp8 &&
      (c.kind == CollectiveKind::reduce_scatter || c.kind == CollectiveKind::all_reduce))
    r.fail(where + ".dtype", "fp8 is moved, never reduced");
  c.group = r.choice(j, "group", where, kGroups, group_kind_name);
  read_group_shape(r, j, where, s, c);
  c.bytes = r.count(r.get(j, "bytes", where), where + ".bytes");
  const std::uint64_t n = static_cast<std::uint64_t>(collective_group_size(s, c));
  read_root_and_peer(r, j, where, c, static_cast<int>(n));
  const std::uint64_t elem = dtype_size_bytes(c.dtype);
  if (c.kind == CollectiveKind::all_to_allv) {
    const json& send = r.array(j, "send_counts", where);
    const json& recv = r.array(j, "recv_counts", where);
    if (send.size() != n || recv.size() != n)
      r.fail(where, "send_counts/recv_counts must have one entry per rank of its " +
                        std::string(group_kind_name(c.group)) + " group (" + std::to_string(n) +
                        ")");
    std::uint64_t total = 0;
    for (std::size_t p = 0; p < n; ++p) {
      c.send_counts.push_back(r.count(send[p], where + ".send_counts[" + std::to_string(p) + "]"));
      c.recv_counts.push_back(r.count(recv[p], where + ".recv_counts[" + std::to_string(p) + "]"));
      total += c.send_counts.back();
    }
    if (total > (std::uint64_t{1} << 61) || total * elem != c.bytes)
      r.fail(where + ".bytes", "is not the sum of send_counts times the element size");
    return c;
  }
  if (j.contains("send_counts") || j.contains("recv_counts"))
    r.fail(where, "has per-peer counts but is not an all_to_allv");
  if (c.bytes == 0) r.fail(where + ".bytes", "must be positive");
  const SizeBasis basis = size_basis(c.kind);
  if (!size_divides(basis, c.bytes, elem, static_cast<int>(n)))
    r.fail(where + ".bytes",
           "does not divide into " + std::to_string(basis == SizeBasis::per_rank ? n : 1) +
               " equal parts of whole " + std::string(dtype_name(c.dtype)) + " elements");
  return c;
}

KernelSlice read_kernel(const Reader& r, const json& j, const std::string& where,
                        std::size_t gemms) {
  KernelSlice k;
  k.kind = r.choice(j, "kind", where, kAllKernelKinds, kernel_kind_name);
  k.label = j.contains("label") ? r.text(j, "label", where) : "";
  k.at = static_cast<int>(r.integer(j, "at", where, 0));
  if (static_cast<std::size_t>(k.at) > gemms)
    r.fail(where + ".at", "is past the op's " + std::to_string(gemms) + " GEMMs");
  k.launches = r.count(r.get(j, "launches", where), where + ".launches");
  if (k.launches == 0) r.fail(where + ".launches", "must be positive");
  k.elements = r.count(r.get(j, "elements", where), where + ".elements");
  k.inner = j.contains("inner") ? r.count(j["inner"], where + ".inner") : 0;
  k.read_bytes = r.count(r.get(j, "read_bytes", where), where + ".read_bytes");
  k.write_bytes = r.count(r.get(j, "write_bytes", where), where + ".write_bytes");
  k.flops = j.contains("flops") ? r.number(j, "flops", where) : 0;
  k.duration_us = j.contains("duration_us") ? r.number(j, "duration_us", where) : 0;
  k.host_us_per_launch =
      j.contains("host_us_per_launch") ? r.number(j, "host_us_per_launch", where) : 0;
  if (k.kind == KernelKind::timed && !(k.duration_us > 0))
    r.fail(where + ".duration_us", "must be positive for a timed kernel");
  if (k.kind == KernelKind::reduce && k.inner == 0)
    r.fail(where + ".inner", "must be positive for a reduce kernel");
  if (k.kind == KernelKind::multi_tensor) {
    // The kernel's tensor lists follow from it: without it the kernel cannot be run.
    const std::string field = where + ".operand_element_bytes";
    if (j.contains("operand_element_bytes"))
      k.operand_element_bytes = r.count(j["operand_element_bytes"], field);
    if (k.operand_element_bytes == 0) r.fail(field, "must be positive for a multi_tensor kernel");
    const std::uint64_t e = k.operand_element_bytes;
    if (e != 1 && e != 2 && e != 4 && e != 8) r.fail(field, "must be 1, 2, 4 or 8");
    // torch's multi_tensor_apply takes at most 5 tensor lists (Adam with AMSGrad).
    const MultiTensorOperands lists = multi_tensor_operands(k);
    if (lists.reads > 5 || lists.writes > 5)
      r.fail(where, "reads " + std::to_string(lists.reads) + " and writes " +
                        std::to_string(lists.writes) +
                        " tensor lists of `elements`; a multi_tensor kernel takes at most 5");
  }
  return k;
}

// A grouped GEMM's groups (version 7): one row count per group; grouped_gemm_problem says
// what else they must agree with.
void read_groups(const Reader& r, const json& j, const std::string& where, GemmShape& s) {
  const json& rows = r.array(j, "group_rows", where);
  const std::string dim = j.contains("group_dim") ? r.text(j, "group_dim", where) : "m";
  if (dim != "m" && dim != "k") r.fail(where + ".group_dim", "'" + dim + "' is not m or k");
  for (std::size_t g = 0; g < rows.size(); ++g)
    s.group_rows.push_back(static_cast<std::int64_t>(
        r.count(rows[g], where + ".group_rows[" + std::to_string(g) + "]")));
  s.group_k = dim == "k";
  const std::string problem = grouped_gemm_problem(s);
  if (!problem.empty()) r.fail(where, problem);
}

ComputeOp read_compute(const Reader& r, const json& j, const std::string& where) {
  ComputeOp c;
  c.dtype = r.choice(j, "dtype", where, kDTypes, dtype_name);
  const json& gemms = r.array(j, "gemms", where);
  for (std::size_t g = 0; g < gemms.size(); ++g) {
    const std::string w = where + ".gemms[" + std::to_string(g) + "]";
    GemmShape s;
    s.m = r.integer(gemms[g], "m", w, 1);
    s.n = r.integer(gemms[g], "n", w, 1);
    s.k = r.integer(gemms[g], "k", w, 1);
    s.batch = r.integer(gemms[g], "batch", w, 1);
    s.label = gemms[g].contains("label") ? r.text(gemms[g], "label", w) : "";
    s.a_transposed = gemms[g].contains("a_transposed") && r.flag(gemms[g], "a_transposed", w);
    if (gemms[g].contains("group_rows")) read_groups(r, gemms[g], w, s);
    c.gemms.push_back(s);
  }
  if (j.contains("kernels")) {
    const json& kernels = r.array(j, "kernels", where);
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      c.kernels.push_back(read_kernel(r, kernels[k], where + ".kernels[" + std::to_string(k) + "]",
                                      c.gemms.size()));
      if (k > 0 && c.kernels[k].at < c.kernels[k - 1].at)
        r.fail(where + ".kernels[" + std::to_string(k) + "].at",
               "is before the kernel's before it");
    }
  }
  c.host_us = j.contains("host_us") ? r.number(j, "host_us", where) : 0;
  return c;
}

// The top level's fields: what the schedule is of, on which world and rank. Returns the version:
// version 1 has no tp, shard_group and allreduce_bytes, which then default.
std::int64_t read_top_level(const Reader& r, const json& j, Schedule& s) {
  const std::int64_t version = r.integer(j, "version", "top level", 0);
  if (version < 1 || version > kScheduleSchemaVersion)
    r.fail("version", std::to_string(version) +
                          " is not supported (this build reads versions 1 to " +
                          std::to_string(kScheduleSchemaVersion) + ")");
  const bool v1 = version == 1;
  s.model = r.text(j, "model", "top level");
  s.plan = r.text(j, "plan", "top level");
  s.wrap = r.text(j, "wrap", "top level");
  s.world = static_cast<int>(r.integer(j, "world", "top level", 1));
  s.gpus_per_node = static_cast<int>(r.integer(j, "gpus_per_node", "top level", 1));
  s.ep = static_cast<int>(r.integer(j, "ep", "top level", 1));
  if (s.world % s.ep != 0)
    r.fail("ep", std::to_string(s.ep) + " does not divide world " + std::to_string(s.world));
  s.tp = v1 ? 1 : static_cast<int>(r.integer(j, "tp", "top level", 1));
  s.shard_group = v1 ? 0 : static_cast<int>(r.integer(j, "shard_group", "top level", 0));
  if (s.world % (s.ep * s.tp) != 0)
    r.fail("tp", "ep x tp (" + std::to_string(s.ep) + " x " + std::to_string(s.tp) +
                     ") does not divide world " + std::to_string(s.world));
  if (s.world % (static_cast<std::int64_t>(mesh_layout(s).shard()) * s.tp) != 0)
    r.fail("shard_group", std::to_string(s.shard_group) + " x tp " + std::to_string(s.tp) +
                              " does not divide world " + std::to_string(s.world));
  s.rank = static_cast<int>(r.integer(j, "rank", "top level", 0));
  if (s.rank >= s.world) r.fail("rank", "is outside the world");
  s.micro_batch = r.integer(j, "micro_batch", "top level", 1);
  s.seq = r.integer(j, "seq", "top level", 1);
  s.micro_batches = static_cast<int>(r.integer(j, "micro_batches", "top level", 1));
  s.tokens_per_step = static_cast<std::uint64_t>(r.integer(j, "tokens_per_step", "top level", 0));
  s.model_params = static_cast<std::uint64_t>(r.integer(j, "model_params", "top level", 0));
  s.active_params = static_cast<std::uint64_t>(r.integer(j, "active_params", "top level", 0));
  return version;
}

void read_units(const Reader& r, const json& j, Schedule& s, bool v1) {
  const json& units = r.array(j, "units", "top level");
  for (std::size_t i = 0; i < units.size(); ++i) {
    const std::string w = "units[" + std::to_string(i) + "]";
    UnitSummary u;
    u.name = r.text(units[i], "name", w);
    u.params = r.count(r.get(units[i], "params", w), w + ".params");
    u.shard_bytes = r.count(r.get(units[i], "shard_bytes", w), w + ".shard_bytes");
    u.allgather_bytes = r.count(r.get(units[i], "allgather_bytes", w), w + ".allgather_bytes");
    u.reduce_scatter_bytes =
        r.count(r.get(units[i], "reduce_scatter_bytes", w), w + ".reduce_scatter_bytes");
    if (!v1)
      u.allreduce_bytes = r.count(r.get(units[i], "allreduce_bytes", w), w + ".allreduce_bytes");
    u.fwd_flops = r.number(units[i], "fwd_flops", w);
    u.bwd_flops = r.number(units[i], "bwd_flops", w);
    s.units.push_back(u);
  }
}

void read_moe(const Reader& r, const json& j, Schedule& s) {
  const json& moe = r.array(j, "moe", "top level");
  for (std::size_t i = 0; i < moe.size(); ++i) {
    const std::string w = "moe[" + std::to_string(i) + "]";
    MoeLayerSummary m;
    m.layer = static_cast<int>(r.integer(moe[i], "layer", w, 0));
    m.dispatch_send_bytes =
        r.count(r.get(moe[i], "dispatch_send_bytes", w), w + ".dispatch_send_bytes");
    m.dispatch_cross_rank_bytes =
        r.count(r.get(moe[i], "dispatch_cross_rank_bytes", w), w + ".dispatch_cross_rank_bytes");
    m.combine_send_bytes =
        r.count(r.get(moe[i], "combine_send_bytes", w), w + ".combine_send_bytes");
    m.combine_cross_rank_bytes =
        r.count(r.get(moe[i], "combine_cross_rank_bytes", w), w + ".combine_cross_rank_bytes");
    s.moe.push_back(m);
  }
}

// ops[i]: its place in the step (stream, phase, unit, deps) and its collective or compute body.
ScheduleOp read_op(const Reader& r, const json& ops, std::size_t i, const Schedule& s,
                   std::unordered_set<std::string>& names) {
  const std::string w = "ops[" + std::to_string(i) + "]";
  ScheduleOp op;
  op.name = r.text(ops[i], "name", w);
  if (op.name.empty() || !names.insert(op.name).second)
    r.fail(w + ".name", "'" + op.name + "' is empty or not unique");
  op.stream = r.choice(ops[i], "stream", w, kStreams, stream_kind_name);
  op.phase = r.choice(ops[i], "phase", w, kPhases, phase_name);
  op.unit = r.text(ops[i], "unit", w);
  op.layer = static_cast<int>(r.integer(ops[i], "layer", w, -1));
  const json& deps = r.array(ops[i], "deps", w);
  for (std::size_t d = 0; d < deps.size(); ++d) {
    const std::string wd = w + ".deps[" + std::to_string(d) + "]";
    if (!deps[d].is_number_integer() || deps[d].get<std::int64_t>() < 0 ||
        deps[d].get<std::int64_t>() >= static_cast<std::int64_t>(i))
      r.fail(wd, "does not refer to an earlier op");
    op.deps.push_back(deps[d].get<int>());
  }
  op.hides_behind = static_cast<int>(r.integer(ops[i], "hides_behind", w, -1));
  if (op.hides_behind >= static_cast<int>(ops.size()))
    r.fail(w + ".hides_behind", "refers to no op");
  const bool comm = op.stream == StreamKind::comm;
  if (comm && !ops[i].contains("collective"))
    r.fail(w, "is on the comm stream but has no 'collective'");
  if (!comm && !ops[i].contains("compute"))
    r.fail(w, "is on the compute stream but has no 'compute'");
  if (ops[i].contains("collective") && ops[i].contains("compute"))
    r.fail(w, "has both 'collective' and 'compute'");
  if (!comm && op.hides_behind != -1) r.fail(w + ".hides_behind", "must be -1 for a compute op");
  if (comm)
    op.body = read_collective(r, ops[i]["collective"], w + ".collective", s);
  else
    op.body = read_compute(r, ops[i]["compute"], w + ".compute");
  return op;
}
}  // namespace

Schedule schedule_from_json(std::string_view text, std::string_view origin) {
  const Reader r(origin);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    std::string what = e.what();
    throw UsageError("schedule " + std::string(origin) + ": not valid JSON (" + what + ")");
  }
  if (!j.is_object()) r.fail("top level", "is not an object");
  Schedule s;
  const bool v1 = read_top_level(r, j, s) == 1;
  read_units(r, j, s, v1);
  read_moe(r, j, s);
  const json& ops = r.array(j, "ops", "top level");
  std::unordered_set<std::string> names;
  for (std::size_t i = 0; i < ops.size(); ++i) s.ops.push_back(read_op(r, ops, i, s, names));
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const int h = s.ops[i].hides_behind;
    if (h >= 0 && s.ops[h].stream != StreamKind::compute)
      r.fail("ops[" + std::to_string(i) + "].hides_behind", "must name a compute op");
  }
  return s;
}
}  // namespace collreplay
