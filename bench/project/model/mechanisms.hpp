// Mechanisms that make per-GPU throughput fall with node count, each from a rule of NCCL or of
// the hardware rather than fitted per series. The projection uses two by default (StepTerms,
// step_terms.hpp): NCCL's hop latencies as a floor across nodes (with_nccl_latency_floor) and the
// slowest of N ranks at the measured per-rank jitter (kMeasuredRankJitterCv). The SM share is
// not: its one measurement here (two ranks sharing one GPU) could not tell NCCL's SMs from the
// other rank's GEMMs, so it waits for a GPU per rank.
//   - NCCL's tuner model for ring collectives (src/graph/tuning.cc of NCCL 2.28,
//     ncclTopoTuneModel and ncclTopoGetAlgoTime): latency and bus bandwidth per protocol as
//     functions of ranks, nodes and channels, and the protocol the tuner picks;
//   - NCCL kernels holding SMs beside the GEMMs: one CTA per channel (src/enqueue.cc launches
//     nChannels blocks), so compute loses about channels / SMs while they run;
//   - the slowest of N ranks: every collective waits for the last rank, so a step pays the
//     expected maximum of N ranks' times, not their mean.
#pragma once
#include "bench/project/model/cost_model.hpp"
#include "bench/project/model/step_terms.hpp"

namespace collreplay::project {

enum class NcclProto { ll, ll128, simple };
// NCCL's compCapIndex rows of its tuner tables.
enum class NcclGpuGen { volta, ampere, hopper, blackwell };

std::string_view nccl_proto_name(NcclProto proto);

// What ncclTopoTuneModel reads for a ring: the communicator's shape, the ring graph's channels
// and per-channel bandwidths (graphs[RING]->bwIntra / bwInter, GB/s), the GPU generation, the
// intra-node link, the CPU vendor (LL's cap across nodes) and the network's own latency
// (graphs[a]->latencyInter, the net plugin's props.latency; 0 for IB verbs).
struct NcclRingShape {
  CollKind kind = CollKind::all_gather;  // all_gather, reduce_scatter or all_reduce
  int ranks = 2, nodes = 1;
  int channels = 16;
  double bw_intra_per_channel_gbyte_s = 20, bw_inter_per_channel_gbyte_s = 3.125;
  NcclGpuGen gen = NcclGpuGen::hopper;
  bool nvlink = true;
  bool amd_cpu = false;
  double net_latency_us = 0;
};

// One (ring, protocol) entry of the tuner's table: time(bytes) = latency + bytes / (1000 x
// algbw), bytes being nccl-tests' S (NCCL's nBytes: count x ranks for all-gather and
// reduce-scatter). algbw 0: the tuner disables the protocol.
struct NcclCost {
  NcclProto proto = NcclProto::simple;
  double latency_us = 0;
  double algbw_gbyte_s = 0;
  double time_us(double bytes) const;
};

NcclCost nccl_ring_cost(const NcclRingShape& shape, NcclProto proto);
// The protocol the tuner picks for `bytes`: the lowest time among LL, LL128 and Simple.
NcclCost nccl_ring_pick(const NcclRingShape& shape, double bytes);

// The ring latency per tier in the cost model's form (base + (n - N) x alpha_intra + (N - 1) x
// alpha_inter), for Simple, from the tuner: base = baseLat[RING][SIMPLE]; alpha_intra = the
// NVLink (or PCI) hop latency, raised to 3 x the net post overhead across nodes; alpha_inter = the
// NET hop latency (Tree's at one GPU per node) plus twice the network's own latency (send and
// flush). Returned as a FabricModel whose bandwidths are `model`'s: the latencies replace the
// model's, which a 2-rank intra-node fit cannot tell apart.
FabricModel with_nccl_ring_latencies(const FabricModel& model, const NcclRingShape& shape);

// Channels NCCL's ring across nodes runs (two per NIC, as its search keeps a channel pair per
// NET device), at least 2: what the latency floor's protocol pick assumes.
int nccl_ring_channels(int links);

// `model` with its per-step latencies raised to NCCL's tuner's for a ring of `span` moving `bytes`
// (nccl-tests' S) in the protocol the tuner picks: the intra-node hops to the NVLink hop or the
// network post overhead (x3 for Simple), the inter-node hops to the NET hop. Only for all-gather,
// reduce-scatter and all-reduce across 2+ nodes (a one-node collective's latency is the measured
// intra-node fit's); `model` is returned as it is otherwise. The bandwidths per channel the pick
// weighs are the model's tiers over nccl_ring_channels(model.links).
FabricModel with_nccl_latency_floor(const FabricModel& model, CollKind kind, double bytes,
                                    const GroupSpan& span);

// Fraction of the GPU's SMs that NCCL's kernel holds while a collective runs: one CTA per
// channel. H100 / H200 SXM have 132 SMs, A100 108.
double nccl_sm_share(int channels, int sm_count);
// StepTerms with compute_slowdown set to the SM share: while an NCCL kernel overlaps a GEMM, the
// GEMM runs on the SMs left.
StepTerms with_nccl_sm_share(const StepTerms& terms, int channels, int sm_count);

// NCCL's socket transport (src/transport/net_socket.cc, ncclNetSocketGetNsockNthread): unless
// NCCL_SOCKET_NTHREADS / NCCL_NSOCKS_PERTHREAD say otherwise, only AWS NICs (2 threads x 8
// sockets) and GCP NICs (4 threads x 1) get helper threads; on any other NIC (IPoIB on Mellanox
// ports) a connection's data moves over one socket, driven by the GPU's proxy thread. A node then
// reaches gpus x min(streams x the rate one stream sustains, its share of the ports), at most the
// ports' total. `stream_gbit_s` is a measured number (FACTS.md: 25.7 Gbit/s per rank over
// loopback TCP on the 2x H200 host); nothing here assumes one.
struct NcclSocketShape {
  int gpus_per_node = 8;
  int ports = 8;  // interfaces NCCL spreads the GPUs over (ib0..ib7)
  double port_gbit_s = 400;
  int threads = 0;           // NCCL_SOCKET_NTHREADS (0: the proxy thread alone)
  int sockets_per_thread = 1;  // NCCL_NSOCKS_PERTHREAD
  double stream_gbit_s = 0;  // what one TCP stream (or helper thread) sustains
};
double nccl_socket_node_gbit_s(const NcclSocketShape& shape);
// `model` with its inter tier at that node bandwidth (GB/s per node).
FabricModel with_nccl_socket_bandwidth(const FabricModel& model, const NcclSocketShape& shape);

// The step of the slowest of `ranks` ranks when each rank's time between two synchronising
// collectives varies with coefficient of variation `cv` (independent, normal): 1 + cv x E[max of
// ranks standard normals]. The factor on compute per synchronised interval.
double slowest_rank_factor(int ranks, double cv, NormalMaxima& maxima);

}  // namespace collreplay::project
