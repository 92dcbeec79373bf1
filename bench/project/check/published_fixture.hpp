// A fixture of published training throughput (tests/fixtures/published/*.csv): one row per
// published point, grouped into series (one cluster, model and layout at several node counts).
// Header, columns in any order ('#' lines hold each source's description):
//   series,model,gpu,gpus_per_node,nodes,fabric,plan,sharding,micro_batch,grad_accum,seq,ac,
//   reduce_dtype,tokens_per_s_per_gpu,band,source
//   [optional: compute, role, tp (default 1), distributed_optimizer and async_tp (yes | no,
//    default no), ddp_bucket_size (--ddp-bucket-size, default 0: Megatron's), pp (default 1) and
//    pp_schedule (--pp-schedule: gpipe | 1f1b | interleaved:V, default 1f1b), tp_style
//    (--tp-style: auto | torch | megatron, default auto), loss (--loss: eager | fused, default
//    eager), gpu_memory_gib (--gpu-memory-gib, default the GPU's) and optimizer_states
//    (--optimizer-states, default plan): what the memory verdict holds the row's step against]
// model: a catalog name or a model .json path (relative paths are taken from the fixture's folder);
// gpu: a100 | h100 | h200 | b200; fabric: a sweeps/fabrics.tsv profile; ac: yes | no;
// band: points of per-GPU ratio error allowed (e.g. 2), a point beyond it fails its series;
// `POINTS diagnose TERM` (e.g. `5 diagnose inter_overhead`: the same verdict, and beside every
// point the value of TERM that would close its gap, a diagnosis, never a pass); `absolute` (a
// single point: no ratio); or `report TERM` (no band: the series is printed with TERM's number and
// not judged);
// compute: a --compute spec; default model:GPU at replay's default MFU;
// role: `declared` (the row is an input of the projection's intervals: its error calibrates their
// width; only in a points series) or `held_out` (the default: judged, and its coverage reported).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collreplay::project {

struct SeriesBand {
  enum class Kind { points, absolute, reported };
  Kind kind = Kind::points;
  double points = 0;  // Kind::points
  std::string term;   // Kind::reported: the number printed; Kind::points: the diagnosis (or "")
  std::string text;   // as written, to compare rows of a series
};

// "2" / "5 diagnose TERM" / "absolute" / "report TERM"; false on anything else.
bool parse_series_band(const std::string& text, SeriesBand& band);

struct PublishedRow {
  std::string series, model, gpu, fabric, plan, sharding, reduce_dtype, compute, source;
  int gpus_per_node = 0, nodes = 0, grad_accum = 1, tp = 1, pp = 1;
  std::string pp_schedule;
  bool distributed_optimizer = false, async_tp = false;
  std::string tp_style = "auto";
  std::string loss = "eager";
  std::optional<double> gpu_memory_gib;
  std::string optimizer_states = "plan";
  std::int64_t ddp_bucket_size = 0;
  std::int64_t micro_batch = 0, seq = 0;
  bool activation_checkpointing = true;
  bool declared = false;  // role: an input of the intervals' calibration, not a held-out check
  double tokens_per_s_per_gpu = 0;
  SeriesBand band;
  std::string where;  // "path:line", for messages
};

// Every row of `path`. UsageError "path:line: ..." (one line) on an unreadable file, a missing
// column, a bad value, an unknown model or GPU, no rows, rows of one series with different
// bands, or a declared row outside a points series.
std::vector<PublishedRow> read_published_fixture(const std::string& path,
                                                 const std::string& catalog_dir);

}  // namespace collreplay::project
