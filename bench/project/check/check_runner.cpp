#include "bench/project/check/check_runner.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "bench/project/check/check_report.hpp"
#include "bench/project/fabric_source.hpp"
#include "bench/project/observed/gpu_memory_bandwidth.hpp"
#include "common/errors.hpp"
#include "workloads/trace/trace_import.hpp"

namespace collreplay::project {
namespace {

WorkloadRequest request_of(const PublishedRow& r, const std::string& catalog_dir) {
  WorkloadRequest q;
  q.model = r.model;
  q.catalog_dir = catalog_dir;
  q.plan = r.plan;
  q.sharding = r.sharding;
  q.gpus_per_node = r.gpus_per_node;
  q.micro_batch = r.micro_batch;
  q.micro_batches = r.grad_accum;
  q.seq = r.seq;
  q.activation_checkpointing = r.activation_checkpointing;
  q.reduce_dtype = r.reduce_dtype;
  q.tp = r.tp;
  q.distributed_optimizer = r.distributed_optimizer;
  q.async_tp = r.async_tp;
  q.ddp_bucket_size = r.ddp_bucket_size;
  q.pipeline.pp = r.pp;
  q.pipeline.schedule = r.pp_schedule;
  return q;
}

// One fabric source per profile and tier shape: the intra-node fit is the same for every row.
class Fabrics {
 public:
  explicit Fabrics(const ProjectOptions& options) : options_(options) {}

  const FabricSource& of(const PublishedRow& r) {
    const std::string key = r.fabric + (r.gpus_per_node > 1 ? "/intra" : "/single");
    auto it = known_.find(key);
    if (it != known_.end()) return it->second;
    ProjectOptions o = options_;
    o.fabric = r.fabric;
    o.request.gpus_per_node = r.gpus_per_node;
    std::ostringstream fits;  // the fit tables of `project`; the check prints its own
    return known_.emplace(key, fabric_source(o, fits)).first->second;
  }

 private:
  const ProjectOptions& options_;
  std::map<std::string, FabricSource> known_;
};

// One fixture row projected: the inputs and schedule kept, so a term can be solved at the point.
struct ProjectedRow {
  PublishedRow published;
  ProjectionInputs inputs;
  Schedule schedule;
  ProjectionRow row;
  std::string compute;
};

ProjectedRow project_row(const PublishedRow& r, const ProjectOptions& o, Fabrics& fabrics) {
  ProjectedRow p;
  p.published = r;
  ProjectionInputs& in = p.inputs;
  in.request = request_of(r, o.request.catalog_dir);
  p.compute = r.compute.empty() ? "model:" + r.gpu : r.compute;
  in.compute = parse_compute(p.compute, in.request);
  // The optimizer step after the last reduce-scatter at the GPU's memory bandwidth, as `project
  // --observed` times it: a per-step cost that a larger micro-batch amortises.
  if (const std::optional<double> hbm = hbm_gbyte_s(r.gpu)) in.terms.optimizer_hbm_gbyte_s = *hbm;
  const FabricSource& fabric = fabrics.of(r);
  in.model = fabric.model;
  in.ratio_lo = fabric.ratio_lo;
  in.ratio_hi = fabric.ratio_hi;
  WorkloadRequest request = in.request;
  request.world = r.nodes * r.gpus_per_node;
  p.schedule = schedule_for_request(request);
  NormalMaxima maxima;
  p.row = project_schedule(in, p.schedule, r.nodes, maxima);
  return p;
}

// The series' points: ratios against its fewest nodes, each point's gap (the real step at the
// projection's first-point speed, less the projected step) and its term's value.
std::vector<SeriesPoint> series_points(const std::vector<ProjectedRow>& rows) {
  const ProjectedRow& first = *std::min_element(
      rows.begin(), rows.end(), [](const ProjectedRow& a, const ProjectedRow& b) {
        return a.published.nodes < b.published.nodes;
      });
  std::vector<SeriesPoint> points;
  for (const ProjectedRow& r : rows) {
    SeriesPoint p;
    p.nodes = r.published.nodes;
    p.world = r.row.world;
    p.real_tokens_per_s_per_gpu = r.published.tokens_per_s_per_gpu;
    p.projected_tokens_per_s_per_gpu = r.row.tokens_per_s_per_gpu;
    p.where = r.published.where;
    const double real_ratio =
        r.published.tokens_per_s_per_gpu / first.published.tokens_per_s_per_gpu;
    const double tokens_per_gpu_step = r.row.tokens_per_s_per_gpu * r.row.step_ms / 1e3;
    const double target_ms =
        tokens_per_gpu_step / (first.row.tokens_per_s_per_gpu * real_ratio) * 1e3;
    if (first.row.tokens_per_s_per_gpu > 0 && r.row.step_ms > 0)
      p.gap_ms = target_ms - r.row.step_ms;
    const SeriesBand& band = r.published.band;
    const bool beyond_first = &r != &first;
    if (band.kind == SeriesBand::Kind::unmatched || (!band.term.empty() && beyond_first))
      p.term_value = projected_term_ms(r.inputs, r.schedule, r.row, band.term, target_ms,
                                       first.published.micro_batch);
    points.push_back(p);
  }
  return points;
}

// The step with `overhead_ms` on every collective that crosses nodes.
double step_with_overhead_ms(const ProjectionInputs& in, const Schedule& s, int nodes,
                             double overhead_ms) {
  ProjectionInputs with = in;
  with.terms.inter_overhead_ms = overhead_ms;
  NormalMaxima maxima;
  return project_schedule(with, s, nodes, maxima).step_ms;
}

// The compute speed-up (%) at which the projected step reaches the target, where the point's
// micro-batch is larger than the first point's: bisection on the compute scale (the step grows
// with it). Negative when the real step is slower (a larger micro-batch that lost speed).
std::optional<double> solve_microbatch_efficiency(const ProjectionInputs& in, const Schedule& s,
                                                  const ProjectionRow& row, double target_ms,
                                                  std::int64_t first_micro_batch) {
  if (in.request.micro_batch <= first_micro_batch || target_ms <= 0) return std::nullopt;
  const auto step_at = [&](double scale) {
    ProjectionInputs with = in;
    with.terms.compute_scale = scale;
    NormalMaxima maxima;
    return project_schedule(with, s, row.nodes, maxima).step_ms;
  };
  double lo = 0.5, hi = 2;
  if (step_at(lo) > target_ms || step_at(hi) < target_ms) return std::nullopt;
  for (int i = 0; i < 40 && hi - lo > 1e-6; ++i) {
    const double mid = (lo + hi) / 2;
    (step_at(mid) < target_ms ? lo : hi) = mid;
  }
  return (1 / ((lo + hi) / 2) - 1) * 100;
}

// The inter-node overhead per collective at which the projected step reaches the target:
// bisection (the step grows with it, monotonically). 0 when the projection is already as slow.
std::optional<double> solve_inter_overhead_ms(const ProjectionInputs& in, const Schedule& s,
                                              const ProjectionRow& row, double target_ms) {
  if (row.nodes < 2) return std::nullopt;
  if (row.step_ms >= target_ms) return 0.0;
  double lo = 0, hi = target_ms - row.step_ms;
  for (int grow = 0; step_with_overhead_ms(in, s, row.nodes, hi) < target_ms; ++grow) {
    if (grow == 20) return std::nullopt;  // nothing on the critical path crosses nodes
    lo = hi;
    hi *= 2;
  }
  for (int i = 0; i < 40 && hi - lo > 1e-4; ++i) {
    const double mid = (lo + hi) / 2;
    (step_with_overhead_ms(in, s, row.nodes, mid) < target_ms ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace

std::optional<double> projected_term_ms(const ProjectionInputs& in, const Schedule& s,
                                        const ProjectionRow& row, const std::string& term,
                                        double target_step_ms, std::int64_t first_micro_batch) {
  if (term == "exposed_comm") return row.exposed_comm_ms;
  if (term == "optimizer_step") return row.optimizer_ms;
  if (term == "layer_headroom") return row.headroom_ms;
  if (term == "inter_overhead") return solve_inter_overhead_ms(in, s, row, target_step_ms);
  if (term == "microbatch_efficiency")
    return solve_microbatch_efficiency(in, s, row, target_step_ms, first_micro_batch);
  return std::nullopt;
}

std::string projected_term_names() {
  return "exposed_comm, optimizer_step, layer_headroom, inter_overhead, microbatch_efficiency";
}

std::string term_meaning(const std::string& term) {
  if (term == "inter_overhead")
    return "ms on every collective that crosses nodes (StepTerms::inter_overhead_ms, what "
           "`project --observed` fits): a host-side wait at the inter-node hop (FSDP1's rate "
           "limiter, NCCL's proxy threads), not bandwidth";
  if (term == "microbatch_efficiency")
    return "% faster compute per token than at the series' first point, at this point's larger "
           "micro-batch (larger GEMMs: an efficiency the fixed-MFU compute model does not see)";
  if (term == "exposed_comm") return "ms per step of communication nothing hides";
  if (term == "optimizer_step") return "ms per step of the optimizer after the last reduce";
  if (term == "layer_headroom") return "ms of the median layer's compute left over its comm";
  return "not a term project computes (" + projected_term_names() + ")";
}

std::vector<CheckedSeries> check_fixtures(const ProjectOptions& o) {
  std::vector<PublishedRow> rows;
  for (const std::string& path : o.check)
    for (PublishedRow& r : read_published_fixture(path, o.request.catalog_dir))
      rows.push_back(std::move(r));
  // Series in the order they first appear; a series' rows may come from several files.
  std::vector<std::string> order;
  std::map<std::string, std::vector<ProjectedRow>> projected;
  std::map<std::string, SeriesBand> bands;
  Fabrics fabrics(o);
  for (const PublishedRow& r : rows) {
    if (!projected.count(r.series)) order.push_back(r.series);
    if (bands.count(r.series) && bands[r.series].text != r.band.text)
      throw UsageError(r.where + ": series '" + r.series + "' has another band in another file");
    bands[r.series] = r.band;
    try {
      projected[r.series].push_back(project_row(r, o, fabrics));
    } catch (const UsageError& e) {
      throw UsageError(r.where + ": " + e.what());
    }
  }
  std::vector<CheckedSeries> checked;
  for (const std::string& s : order) {
    const std::vector<ProjectedRow>& series = projected[s];
    const ProjectedRow& first = *std::min_element(
        series.begin(), series.end(), [](const ProjectedRow& a, const ProjectedRow& b) {
          return a.published.nodes < b.published.nodes;
        });
    checked.push_back({check_series(s, bands[s], series_points(series)), first.compute,
                       first.published.fabric});
  }
  return checked;
}

int run_check(const ProjectOptions& o, std::ostream& out) {
  const std::vector<CheckedSeries> series = check_fixtures(o);
  print_check(series, out);
  for (const CheckedSeries& s : series)
    if (!s.check.passed) return 1;
  return 0;
}

}  // namespace collreplay::project
