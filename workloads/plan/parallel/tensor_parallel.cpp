#include "workloads/plan/parallel/tensor_parallel.hpp"

namespace collreplay {
namespace {

class TpItems {
 public:
  TpItems(const ResolvedRequest& r, const std::string& prefix, PhaseOps& ops)
      : r_(r), prefix_(prefix), ops_(ops), items_(static_cast<int>(ops.compute.size())) {}

  // `before`: the collective feeds compute item i; otherwise it takes item i's output.
  void add(CollectiveKind kind, int i, bool before, const std::string& what,
           const std::string& unit, int layer, Phase phase) {
    CommItem c;
    const char* k = kind == CollectiveKind::all_gather       ? "ag"
                    : kind == CollectiveKind::reduce_scatter ? "rs"
                                                             : "ar";
    c.name = prefix_ + "tp." + k + "." + phase_tag(phase) + "." + what;
    c.unit = unit;
    c.layer = layer;
    c.phase = phase;
    c.op.kind = kind;
    c.op.dtype = r_.param_dtype;
    c.op.group = GroupKind::tp;
    c.op.bytes = times(times(r_.tokens, static_cast<std::uint64_t>(r_.model.hidden)),
                       dtype_size_bytes(r_.param_dtype));
    c.priority = 0;
    const int first_user = before ? i : i + 1;  // the compute item that needs the result
    c.after = before ? i - 1 : i;
    if (r_.request.async_tp) {
      c.hides = first_user < items_ ? first_user : -1;
      c.needed_by = first_user + 1 < items_ ? first_user + 1 : -1;
    } else {
      c.needed_by = first_user < items_ ? first_user : -1;
    }
    ops_.comm.push_back(c);
  }

  // Megatron's backward all-gathers a column GEMM's saved input shard again (tensor_parallel/
  // layers.py, LinearWithGradAccumulationAndAsyncCommunication.backward): issued before the
  // input-gradient GEMM, which it overlaps, and waited for by the weight-gradient GEMM of the same
  // item (so at the latest by the next item).
  void add_input_regather(int i, const std::string& what, const std::string& unit, int layer) {
    add(CollectiveKind::all_gather, i, true, what + ".input", unit, layer, Phase::backward);
    CommItem& c = ops_.comm.back();
    c.hides = i;
    c.needed_by = i + 1 < items_ ? i + 1 : -1;
  }

 private:
  const ResolvedRequest& r_;
  const std::string& prefix_;
  PhaseOps& ops_;
  int items_;
};

}  // namespace

void add_tensor_parallel_items(const ResolvedRequest& r, const StepStructure& s,
                               const std::vector<int>& item_seg, bool forward_phase,
                               const std::string& prefix, PhaseOps& ops) {
  if (r.request.tp == 1) return;
  const bool sp = r.request.sequence_parallel;
  const bool regather = r.request.megatron_tp();
  const CollectiveKind in_fwd = CollectiveKind::all_gather,
                       out_fwd = sp ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce;
  const CollectiveKind in_bwd = sp ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce;
  TpItems tp(r, prefix, ops);
  const int items = static_cast<int>(item_seg.size());
  // A pipeline stage without the embedding has no embedding collectives.
  const bool embedding = r.request.pipeline.stage.embedding;
  if (forward_phase && embedding) tp.add(out_fwd, -1, false, "embed_tokens", "root", -1, Phase::forward);
  for (int i = 0; i < items; ++i) {
    const Segment& g = s.segments[item_seg[i]];
    const Phase phase = ops.compute[i].phase;
    const std::string what = "s" + std::to_string(item_seg[i]) + "." + g.label;
    const std::string& unit = ops.compute[i].unit;
    if (phase != Phase::backward) {
      if (g.tp_in && sp) tp.add(in_fwd, i, true, what, unit, g.layer, phase);
      if (g.tp_out) tp.add(out_fwd, i, false, what, unit, g.layer, phase);
    } else {
      if (g.tp_out && sp) tp.add(CollectiveKind::all_gather, i, true, what, unit, g.layer, phase);
      if (g.tp_in && sp && regather) tp.add_input_regather(i, what, unit, g.layer);
      if (g.tp_in) tp.add(in_bwd, i, false, what, unit, g.layer, phase);
    }
  }
  if (!forward_phase && sp && embedding)
    tp.add(CollectiveKind::all_gather, items - 1, false, "embed_tokens", "root", -1,
           Phase::backward);
}

}  // namespace collreplay
