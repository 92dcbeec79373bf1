#include "bench/project/layouts/layouts.hpp"

namespace collreplay::project {
namespace {

constexpr int kDegrees[] = {2, 4, 8};

// ddp_do: DDP with Megatron's distributed optimizer (optimizer states sharded over the rest).
enum class DataParallel { fsdp, hsdp, ddp, ddp_do };
constexpr DataParallel kDataParallel[] = {DataParallel::fsdp, DataParallel::hsdp,
                                          DataParallel::ddp, DataParallel::ddp_do};

const char* dp_name(DataParallel dp) {
  switch (dp) {
    case DataParallel::fsdp: return "fsdp";
    case DataParallel::hsdp: return "hsdp";
    case DataParallel::ddp: return "ddp";
    case DataParallel::ddp_do: return "ddp+do";
  }
  return "?";
}

Layout make(const WorkloadRequest& base, int world, DataParallel dp, int tp, int ep) {
  Layout l;
  l.request = base;
  l.request.world = world;
  l.request.tp = tp;
  l.request.ep = ep;
  l.request.shard_group = 0;  // hybrid: the node's ranks of one TP index
  if (dp == DataParallel::ddp || dp == DataParallel::ddp_do) l.request.plan = "ddp";
  l.request.distributed_optimizer = dp == DataParallel::ddp_do;
  l.request.sharding = dp == DataParallel::hsdp ? "hybrid" : "full";
  l.name = layout_name(l.request);
  return l;
}

// Why tensor parallelism of degree tp does not fit this model and node, or "".
std::string tp_refusal(const ModelConfig& m, int tp, int gpus_per_node) {
  const std::string what = "tp " + std::to_string(tp);
  if (tp > gpus_per_node)
    return what + " exceeds " + std::to_string(gpus_per_node) + " GPUs per node";
  if (m.heads % tp != 0) return what + " does not divide " + std::to_string(m.heads) + " heads";
  if (m.kv_heads % tp != 0)
    return what + " does not divide " + std::to_string(m.kv_heads) + " KV heads";
  if (m.intermediate % tp != 0 || m.vocab % tp != 0 || m.expert_intermediate % tp != 0)
    return what + " does not divide the intermediate sizes and the vocabulary";
  return "";
}

// Why expert parallelism of degree ep does not fit this model and world, or "".
std::string ep_refusal(const ModelConfig& m, int ep, int world, int gpus_per_node) {
  const std::string what = "ep " + std::to_string(ep);
  if (!m.is_moe()) return what + ": a dense model has no experts to spread";
  if (m.experts % ep != 0)
    return what + " does not divide " + std::to_string(m.experts) + " experts";
  if (ep > world) return what + " exceeds the world of " + std::to_string(world);
  if (world % ep != 0 || (ep > gpus_per_node ? ep % gpus_per_node : gpus_per_node % ep) != 0)
    return what + ": expert groups would not tile the nodes";
  return "";
}

// Why HSDP over shard groups of `shard` ranks (a node's ranks of one TP index) adds nothing, or "".
std::string hsdp_refusal(int nodes, int shard) {
  if (nodes == 1) return "one node: HSDP has a single replica, it is FSDP";
  if (shard == 1)
    return "one rank per node and TP index: HSDP's shard group is one rank, it is DDP";
  return "";
}

// A pipeline of pp stages (1F1B), tp inside each stage, fsdp or ddp across the rest: FSDP2 with
// reshard_after_forward=False, torchtitan's default under a pipeline (each unit gathered once a
// step, reduce-scattered once after the last backward). Each data-parallel
// replica of pp x tp ranks runs the base's micro-batches x pp x tp per step: the global batch of
// the fsdp layout.
Layout make_pipeline(const WorkloadRequest& base, int world, DataParallel dp, int tp, int pp) {
  Layout l = make(base, world, dp, tp, 1);
  l.request.pipeline.pp = pp;
  l.request.pipeline.schedule = "1f1b";
  l.request.micro_batches = base.micro_batches * pp * tp;
  if (dp == DataParallel::fsdp) {
    l.request.plan = "fsdp2";
    l.request.sharding = "grad-op";
  }
  l.name = layout_name(l.request);
  return l;
}

// Why a pipeline of pp stages with tp does not fit this model and world, or "".
std::string pp_refusal(const ModelConfig& m, const WorkloadRequest& base, int pp, int tp,
                       int world) {
  const std::string what = "pp " + std::to_string(pp);
  const std::int64_t layers = base.layers < 0 ? m.layers : base.layers;
  if (layers % pp != 0)
    return what + " does not divide the " + std::to_string(layers) + " decoder layers";
  if (world % (pp * tp) != 0 || world == pp * tp)
    return what + " x tp " + std::to_string(tp) + " leaves no data parallelism in a world of " +
           std::to_string(world);
  return "";
}

}  // namespace

std::string layout_name(const WorkloadRequest& r) {
  // Tensor parallel over the whole world leaves no data parallelism to name (a world of one GPU
  // is still fsdp, hsdp or ddp).
  if (r.tp > 1 && r.tp == r.world) return "tp" + std::to_string(r.tp);
  std::string prefix = r.tp > 1   ? "tp" + std::to_string(r.tp) + "+"
                       : r.ep > 1 ? "ep" + std::to_string(r.ep) + "+"
                                  : "";
  if (r.pipeline.pp > 1) prefix += "pp" + std::to_string(r.pipeline.pp) + "+";
  const DataParallel ddp = r.distributed_optimizer ? DataParallel::ddp_do : DataParallel::ddp;
  const DataParallel dp = r.plan == "ddp"                                      ? ddp
                          : r.sharding == "hybrid" || r.sharding == "hybrid-zero2" ? DataParallel::hsdp
                                                                               : DataParallel::fsdp;
  return prefix + dp_name(dp);
}

std::string layout_label(const WorkloadRequest& r) {
  return layout_name(r) + (r.activation_checkpointing ? "+recompute" : "");
}

std::vector<Layout> candidate_layouts(const WorkloadRequest& base, const ModelConfig& model,
                                      int nodes) {
  const int g = base.gpus_per_node;
  const int world = nodes * g;
  std::vector<Layout> out;
  for (DataParallel dp : kDataParallel) {
    out.push_back(make(base, world, dp, 1, 1));
    if (dp == DataParallel::hsdp) out.back().refused = hsdp_refusal(nodes, g);
  }
  for (int tp : kDegrees) {
    const std::string refused = tp_refusal(model, tp, g);
    for (DataParallel dp : kDataParallel) {
      // Alone, tensor parallelism is one layout whatever the data-parallel plan would be.
      if (tp == world && dp != DataParallel::fsdp) continue;
      out.push_back(make(base, world, dp, tp, 1));
      out.back().refused = refused;
      if (refused.empty() && dp == DataParallel::hsdp)
        out.back().refused = hsdp_refusal(nodes, g / tp);
    }
  }
  for (int ep : kDegrees) {
    out.push_back(make(base, world, DataParallel::fsdp, 1, ep));
    out.back().refused = ep_refusal(model, ep, world, g);
  }
  // Pipelines across nodes with TP inside them, as large models run them (Megatron-LM, NeMo,
  // torchtitan); each is a projection of pp stages run together, so the set is kept to the
  // issue's tpK+ppN+fsdp|ddp.
  for (int pp : kDegrees)
    for (int tp : kDegrees) {
      std::string refused = tp_refusal(model, tp, g);
      if (refused.empty()) refused = pp_refusal(model, base, pp, tp, world);
      for (DataParallel dp : {DataParallel::fsdp, DataParallel::ddp}) {
        out.push_back(make_pipeline(base, world, dp, tp, pp));
        out.back().refused = refused;
      }
    }
  return out;
}

}  // namespace collreplay::project
