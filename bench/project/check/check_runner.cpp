#include "bench/project/check/check_runner.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "bench/project/check/check_report.hpp"
#include "bench/project/check/check_terms.hpp"
#include "bench/project/fabric_source.hpp"
#include "bench/project/memory/memory_limit.hpp"
#include "common/data_files.hpp"
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
  q.tp_style = r.tp_style;
  q.loss = r.loss;
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
  const FabricSource& fabric = fabrics.of(r);
  in.model = fabric.model;
  in.ratio_lo = fabric.ratio_lo;
  in.ratio_hi = fabric.ratio_hi;
  in.memory = memory_limit(MemoryFlags{r.gpu_memory_gib, r.optimizer_states}, in.compute,
                           in.request);
  WorkloadRequest request = in.request;
  request.world = r.nodes * r.gpus_per_node;
  p.schedule = schedule_for_request(request);
  NormalMaxima maxima;
  p.row = project_schedule(in, p.schedule, r.nodes, maxima);
  return p;
}

const ProjectedRow& first_of(const std::vector<ProjectedRow>& rows) {
  return *std::min_element(rows.begin(), rows.end(),
                           [](const ProjectedRow& a, const ProjectedRow& b) {
                             return a.published.nodes < b.published.nodes;
                           });
}

// The series' points: ratios against its fewest nodes, each point's gap (the real step at the
// projection's first-point speed, less the projected step) and its term's number.
std::vector<SeriesPoint> series_points(const std::vector<ProjectedRow>& rows) {
  const ProjectedRow& first = first_of(rows);
  std::vector<SeriesPoint> points;
  for (const ProjectedRow& r : rows) {
    SeriesPoint p;
    p.nodes = r.published.nodes;
    p.world = r.row.world;
    p.real_tokens_per_s_per_gpu = r.published.tokens_per_s_per_gpu;
    p.projected_tokens_per_s_per_gpu = r.row.tokens_per_s_per_gpu;
    p.declared = r.published.declared;
    p.where = r.published.where;
    const double real_ratio =
        r.published.tokens_per_s_per_gpu / first.published.tokens_per_s_per_gpu;
    const double tokens_per_gpu_step = r.row.tokens_per_s_per_gpu * r.row.step_ms / 1e3;
    const double target_ms =
        tokens_per_gpu_step / (first.row.tokens_per_s_per_gpu * real_ratio) * 1e3;
    if (first.row.tokens_per_s_per_gpu > 0 && r.row.step_ms > 0)
      p.gap_ms = target_ms - r.row.step_ms;
    const SeriesBand& band = r.published.band;
    const bool reported = band.kind == SeriesBand::Kind::reported;
    if (!band.term.empty() && (reported || &r != &first))
      p.term_value = projected_term_ms(r.inputs, r.schedule, r.row, band.term, target_ms,
                                       first.published.micro_batch);
    points.push_back(p);
  }
  return points;
}

// Every row of `paths`, grouped by series in the order they first appear (a series' rows may
// come from several files, with one band); `keep` picks the series to project.
template <typename Keep>
std::vector<CheckedSeries> project_series(const ProjectOptions& o,
                                          const std::vector<std::string>& paths, Keep keep) {
  std::vector<PublishedRow> rows;
  for (const std::string& path : paths)
    for (PublishedRow& r : read_published_fixture(path, o.request.catalog_dir))
      rows.push_back(std::move(r));
  std::vector<std::string> order;
  std::map<std::string, std::vector<PublishedRow>> by_series;
  for (PublishedRow& r : rows) {
    if (!by_series.count(r.series)) order.push_back(r.series);
    std::vector<PublishedRow>& series = by_series[r.series];
    if (!series.empty() && series.front().band.text != r.band.text)
      throw UsageError(r.where + ": series '" + r.series + "' has another band in another file");
    series.push_back(std::move(r));
  }
  Fabrics fabrics(o);
  std::vector<CheckedSeries> checked;
  for (const std::string& s : order) {
    if (!keep(by_series[s])) continue;
    std::vector<ProjectedRow> projected;
    for (const PublishedRow& r : by_series[s]) try {
        projected.push_back(project_row(r, o, fabrics));
      } catch (const UsageError& e) {
        throw UsageError(r.where + ": " + e.what());
      }
    const ProjectedRow& first = first_of(projected);
    checked.push_back({check_series(s, first.published.band, series_points(projected)),
                       first.compute, first.published.fabric, {}});
    for (const ProjectedRow& p : projected)
      if (p.row.memory)
        checked.back().memory.push_back(memory_verdict(s, p.published.nodes, *p.row.memory,
                                                       p.inputs.memory->budget, p.published.where));
  }
  return checked;
}

std::vector<DeclaredError> declared_errors(const std::vector<CheckedSeries>& series) {
  std::vector<DeclaredError> errors;
  for (const CheckedSeries& cs : series) {
    if (cs.check.points.empty()) continue;
    const int first_world = cs.check.points.front().point.world;
    for (const CheckedPoint& p : cs.check.points)
      if (p.point.declared)
        errors.push_back({std::log2(static_cast<double>(p.point.world) / first_world),
                          p.error_points, p.point.where});
  }
  return errors;
}

std::string files_text(const std::vector<std::string>& paths) {
  std::string text;
  for (const std::string& p : paths)
    text += (text.empty() ? "" : ", ") + std::filesystem::path(p).filename().string();
  return text;
}

// Every point of a points series gets its interval; a held-out one is covered when its real
// ratio lies inside.
void set_intervals(std::vector<CheckedSeries>& series, const IntervalCalibration& calibration) {
  for (CheckedSeries& cs : series) {
    if (cs.check.band.kind != SeriesBand::Kind::points || cs.check.points.empty()) continue;
    const int first_world = cs.check.points.front().point.world;
    for (CheckedPoint& p : cs.check.points) {
      const double d = extrapolation_distance(p.point.world, first_world, p.point.nodes, 0);
      const RatioInterval i = ratio_interval(calibration, p.projected_ratio, d);
      p.ratio_lo = i.lo;
      p.ratio_hi = i.hi;
      p.covered = p.real_ratio >= i.lo - 1e-12 && p.real_ratio <= i.hi + 1e-12;
    }
  }
}

}  // namespace

CheckReport check_fixtures(const ProjectOptions& o) {
  CheckReport report;
  report.series = project_series(o, o.check, [](const std::vector<PublishedRow>&) { return true; });
  const std::vector<DeclaredError> declared = declared_errors(report.series);
  // Fixtures that declare no row are held out as a whole against the committed calibration.
  report.calibration = declared.empty() ? published_calibration()
                                        : calibrate_interval(declared, files_text(o.check));
  set_intervals(report.series, report.calibration);
  return report;
}

int run_check(const ProjectOptions& o, std::ostream& out) {
  const CheckReport report = check_fixtures(o);
  print_check(report, out);
  for (const CheckedSeries& s : report.series) {
    if (s.check.judged && !s.check.passed) return 1;
    for (const MemoryVerdict& m : s.memory)
      if (m.fit == MemoryFit::no_fit) return 1;
  }
  return 0;
}

std::vector<std::string> published_fixture_files() {
  // The intervals need them: `make install` copies them into PREFIX/share/collreplay.
  const std::string dir = require_data_file(
      kPublishedFixtures, "COLLREPLAY_DATA=DIR, DIR holding tests/fixtures/published (the "
                          "declared rows every projection's intervals come from)");
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".csv") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

IntervalCalibration published_calibration() {
  const ProjectOptions o;
  const std::vector<std::string> files = published_fixture_files();
  const std::vector<CheckedSeries> series =
      project_series(o, files, [](const std::vector<PublishedRow>& rows) {
        return std::any_of(rows.begin(), rows.end(),
                           [](const PublishedRow& r) { return r.declared; });
      });
  return calibrate_interval(declared_errors(series), files_text(files));
}

}  // namespace collreplay::project
