#include "bench/project/model/mechanisms.hpp"

#include <algorithm>
#include <array>

#include "common/errors.hpp"

namespace collreplay::project {
namespace {

// NCCL 2.28 src/graph/tuning.cc, ncclTunerConstantsDefaults, columns { LL, LL128, Simple }.
constexpr std::array<double, 3> kRingBaseLatencyUs = {6.6, 14.0, 8.4};
constexpr std::array<double, 3> kRingNvlinkHopUs = {0.6, 1.9, 3.4};
constexpr std::array<double, 3> kRingPciHopUs = {1.0, 2.5, 5.7};
constexpr std::array<double, 3> kRingNetHopUs = {2.7, 4.0, 14.0};
constexpr std::array<double, 3> kTreeNetHopUs = {5.0, 8.5, 14.0};  // used at one GPU per node
// llMaxBws[index1][index2]: index1 = GPU generation on one node, else the CPU vendor (Intel 0,
// AMD 1); index2 = nodes 1, 2, more.
constexpr double kLlMaxBw[4][3] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
// perChMaxRingLL128Bws[generation][index2].
constexpr double kRingLl128PerChannel[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}};
// getNetOverhead: the host's cost of posting a network operation, us (x3 for Simple).
constexpr double kNetOverheadIntelUs = 1.0, kNetOverheadAmdUs = 2.0;

int proto_index(NcclProto p) { return static_cast<int>(p); }

int ring_steps(const NcclRingShape& s) {
  switch (s.kind) {
    case CollKind::all_gather:
    case CollKind::reduce_scatter: return s.ranks - 1;
    case CollKind::all_reduce: return 2 * (s.ranks - 1);
    default: throw UsageError("NCCL's ring model covers all-gather, reduce-scatter and all-reduce");
  }
}

int inter_steps(const NcclRingShape& s) {
  if (s.nodes <= 1) return 0;
  return s.kind == CollKind::all_reduce ? 2 * (s.nodes - 1) : s.nodes - 1;
}

void check_shape(const NcclRingShape& s) {
  if (s.ranks < 2 || s.nodes < 1 || s.ranks % s.nodes != 0 || s.channels < 1)
    throw UsageError("NCCL ring model: ranks must be 2 or more, a multiple of nodes, channels >= 1");
}

double intra_hop_us(const NcclRingShape& s, NcclProto p) {
  const double hop = (s.nvlink ? kRingNvlinkHopUs : kRingPciHopUs)[proto_index(p)];
  if (s.nodes <= 1) return hop;
  // Inter-node rings still launch every step's network post.
  const double overhead =
      (s.amd_cpu ? kNetOverheadAmdUs : kNetOverheadIntelUs) * (p == NcclProto::simple ? 3 : 1);
  return std::max(hop, overhead);
}

double inter_hop_us(const NcclRingShape& s, NcclProto p) {
  const bool one_per_node = s.ranks == s.nodes;  // latencies fully exposed: Tree's NET latency
  double hop = (one_per_node ? kTreeNetHopUs : kRingNetHopUs)[proto_index(p)] + s.net_latency_us;
  if (p == NcclProto::simple) hop += s.net_latency_us;  // the flush
  return hop;
}

double ring_latency_us(const NcclRingShape& s, NcclProto p) {
  const int steps = ring_steps(s), inter = inter_steps(s);
  return kRingBaseLatencyUs[proto_index(p)] + (steps - inter) * intra_hop_us(s, p) +
         inter * inter_hop_us(s, p);
}

}  // namespace

std::string_view nccl_proto_name(NcclProto proto) {
  switch (proto) {
    case NcclProto::ll: return "LL";
    case NcclProto::ll128: return "LL128";
    case NcclProto::simple: return "Simple";
  }
  return "?";
}

double NcclCost::time_us(double bytes) const {
  return algbw_gbyte_s > 0 ? latency_us + bytes / (1000 * algbw_gbyte_s) : -1;
}

NcclCost nccl_ring_cost(const NcclRingShape& s, NcclProto p) {
  check_shape(s);
  const int gen = static_cast<int>(s.gen);
  const int by_nodes = s.nodes <= 2 ? s.nodes - 1 : 2;
  // Up to two nodes the tuner takes the intra-node speed (the ring crosses the NIC only twice).
  const double per_channel =
      s.nodes <= 2 ? s.bw_intra_per_channel_gbyte_s : s.bw_inter_per_channel_gbyte_s;
  double bus = s.channels * per_channel;
  if (p == NcclProto::ll) {
    const int row = s.nodes == 1 ? gen : s.amd_cpu ? 1 : 0;
    bus = std::min(kLlMaxBw[row][by_nodes], bus * 0.5);
  }
  if (p == NcclProto::ll128)
    bus = std::min(bus * 0.92, s.channels * kRingLl128PerChannel[gen][by_nodes]);
  NcclCost cost;
  cost.proto = p;
  cost.algbw_gbyte_s = bus * s.ranks / ring_steps(s);  // bus bandwidth to algorithm bandwidth
  cost.latency_us = ring_latency_us(s, p);
  return cost;
}

NcclCost nccl_ring_pick(const NcclRingShape& s, double bytes) {
  NcclCost best = nccl_ring_cost(s, NcclProto::simple);
  double best_us = best.time_us(bytes);
  // ncclTopoGetAlgoTime: a multi-node ring all-reduce in Simple pays its latency 1.4x (the ring's
  // plateau, compute capability 8.0 and later) once each channel's share reaches 64 bytes per rank.
  if (s.kind == CollKind::all_reduce && s.nodes > 1 && bytes / (s.channels * s.ranks) >= 64)
    best_us += best.latency_us * (s.gen <= NcclGpuGen::volta ? 0.9 : 0.4);
  for (NcclProto p : {NcclProto::ll, NcclProto::ll128}) {
    const NcclCost c = nccl_ring_cost(s, p);
    const double us = c.time_us(bytes);
    if (us >= 0 && us < best_us) {
      best = c;
      best_us = us;
    }
  }
  return best;
}

FabricModel with_nccl_ring_latencies(const FabricModel& model, const NcclRingShape& shape) {
  FabricModel m = model;
  m.base_us = kRingBaseLatencyUs[proto_index(NcclProto::simple)];
  m.intra.alpha_us = intra_hop_us(shape, NcclProto::simple);
  m.inter.alpha_us = inter_hop_us(shape, NcclProto::simple);
  return m;
}

int nccl_ring_channels(int links) { return std::max(2, 2 * links); }

FabricModel with_nccl_latency_floor(const FabricModel& model, CollKind kind, double bytes,
                                    const GroupSpan& span) {
  const bool ring_kind = kind == CollKind::all_gather || kind == CollKind::reduce_scatter ||
                         kind == CollKind::all_reduce;
  if (!ring_kind || span.nodes < 2 || span.ranks < 2 || span.ranks % span.nodes != 0) return model;
  NcclRingShape shape;
  shape.kind = kind;
  shape.ranks = span.ranks;
  shape.nodes = span.nodes;
  shape.channels = nccl_ring_channels(model.links);
  // The tier bandwidths the tuner weighs (per channel): intra per GPU, inter per node's NICs.
  shape.bw_intra_per_channel_gbyte_s = std::max(model.intra.bw_gbyte_s, 1e-3) / shape.channels;
  shape.bw_inter_per_channel_gbyte_s = std::max(model.inter.bw_gbyte_s, 1e-3) / shape.channels;
  const NcclProto proto = nccl_ring_pick(shape, bytes).proto;
  FabricModel m = model;
  if (span.ranks > span.nodes)
    m.intra.alpha_us = std::max(m.intra.alpha_us, intra_hop_us(shape, proto));
  m.inter.alpha_us = std::max(m.inter.alpha_us, inter_hop_us(shape, proto));
  return m;
}

double nccl_sm_share(int channels, int sm_count) {
  if (channels < 0 || sm_count < 1) throw UsageError("SM share: channels >= 0 and SMs >= 1");
  return std::min(0.95, static_cast<double>(channels) / sm_count);
}

StepTerms with_nccl_sm_share(const StepTerms& terms, int channels, int sm_count) {
  StepTerms t = terms;
  t.compute_slowdown = nccl_sm_share(channels, sm_count);
  return t;
}

double nccl_socket_node_gbit_s(const NcclSocketShape& s) {
  if (s.gpus_per_node < 1 || s.ports < 1 || s.port_gbit_s <= 0 || s.threads < 0 ||
      s.sockets_per_thread < 1 || s.stream_gbit_s <= 0)
    throw UsageError("NCCL socket model: positive GPUs, ports, port and stream rates");
  const int streams = std::max(1, s.threads * s.sockets_per_thread);
  const double ports_gbit_s = s.ports * s.port_gbit_s;
  const double per_gpu = std::min(streams * s.stream_gbit_s, ports_gbit_s / s.gpus_per_node);
  return std::min(ports_gbit_s, per_gpu * s.gpus_per_node);
}

FabricModel with_nccl_socket_bandwidth(const FabricModel& model, const NcclSocketShape& shape) {
  FabricModel m = model;
  m.inter.bw_gbyte_s = nccl_socket_node_gbit_s(shape) / 8;
  return m;
}

double slowest_rank_factor(int ranks, double cv, NormalMaxima& maxima) {
  if (ranks < 1 || cv < 0) throw UsageError("slowest rank: ranks >= 1 and cv >= 0");
  return ranks == 1 ? 1.0 : 1 + cv * maxima.expected_max(ranks);
}

}  // namespace collreplay::project
