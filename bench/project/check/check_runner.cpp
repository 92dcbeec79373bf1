#include "bench/project/check/check_runner.hpp"

#include <map>
#include <sstream>

#include "bench/project/check/check_report.hpp"
#include "bench/project/fabric_source.hpp"
#include "common/errors.hpp"

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

SeriesPoint project_row(const PublishedRow& r, const ProjectOptions& o, Fabrics& fabrics,
                        std::string& compute) {
  ProjectionInputs in;
  in.request = request_of(r, o.request.catalog_dir);
  compute = r.compute.empty() ? "model:" + r.gpu : r.compute;
  in.compute = parse_compute(compute, in.request);
  const FabricSource& fabric = fabrics.of(r);
  in.model = fabric.model;
  in.ratio_lo = fabric.ratio_lo;
  in.ratio_hi = fabric.ratio_hi;
  const ProjectionRow row = project_nodes(in, r.nodes);
  SeriesPoint p;
  p.nodes = r.nodes;
  p.world = row.world;
  p.real_tokens_per_s_per_gpu = r.tokens_per_s_per_gpu;
  p.projected_tokens_per_s_per_gpu = row.tokens_per_s_per_gpu;
  if (r.band.kind == SeriesBand::Kind::unmatched) p.term_value = projected_term_ms(row, r.band.term);
  p.where = r.where;
  return p;
}

}  // namespace

std::optional<double> projected_term_ms(const ProjectionRow& row, const std::string& term) {
  if (term == "exposed_comm") return row.exposed_comm_ms;
  if (term == "optimizer_step") return row.optimizer_ms;
  if (term == "layer_headroom") return row.headroom_ms;
  return std::nullopt;
}

std::string projected_term_names() { return "exposed_comm, optimizer_step, layer_headroom"; }

std::vector<CheckedSeries> check_fixtures(const ProjectOptions& o) {
  std::vector<PublishedRow> rows;
  for (const std::string& path : o.check)
    for (PublishedRow& r : read_published_fixture(path, o.request.catalog_dir))
      rows.push_back(std::move(r));
  // Series in the order they first appear; a series' rows may come from several files.
  std::vector<std::string> order;
  std::map<std::string, std::vector<SeriesPoint>> points;
  std::map<std::string, SeriesBand> bands;
  std::map<std::string, std::map<int, std::string>> compute;
  Fabrics fabrics(o);
  for (const PublishedRow& r : rows) {
    if (!points.count(r.series)) order.push_back(r.series);
    if (bands.count(r.series) && bands[r.series].text != r.band.text)
      throw UsageError(r.where + ": series '" + r.series + "' has another band in another file");
    bands[r.series] = r.band;
    std::string used;
    try {
      points[r.series].push_back(project_row(r, o, fabrics, used));
    } catch (const UsageError& e) {
      throw UsageError(r.where + ": " + e.what());
    }
    compute[r.series][r.nodes] = used;
  }
  std::vector<CheckedSeries> checked;
  for (const std::string& s : order)
    checked.push_back({check_series(s, bands[s], points[s]), compute[s].begin()->second});
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
