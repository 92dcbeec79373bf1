#include "bench/project/check/published_fixture.hpp"

#include <filesystem>
#include <map>

#include "bench/compute/gpu_peaks.hpp"
#include "bench/project/memory/memory_model.hpp"
#include "records/csv_table.hpp"
#include "common/errors.hpp"
#include "workloads/model/model.hpp"

namespace collreplay::project {
namespace {

const std::vector<std::string> kColumns = {
    "series", "model", "gpu", "gpus_per_node", "nodes", "fabric", "plan", "sharding",
    "micro_batch", "grad_accum", "seq", "ac", "reduce_dtype", "tokens_per_s_per_gpu", "band",
    "source"};
constexpr const char* kReport = "report ";
constexpr const char* kDiagnose = " diagnose ";

// A model path is read from the fixture's folder, so fixtures and their stand-in models move
// together; catalog names stay names.
std::string model_of(const std::string& text, const std::string& fixture) {
  const bool path = text.find('/') != std::string::npos ||
                    (text.size() > 5 && text.compare(text.size() - 5, 5, ".json") == 0);
  if (!path || std::filesystem::path(text).is_absolute()) return text;
  return (std::filesystem::path(fixture).parent_path() / text).string();
}

// An optional yes / no column; `fallback` when the column or its cell is empty.
bool yes_no(const CsvTable& t, std::size_t i, const std::string& column, bool fallback) {
  const std::string v = t.optional_text(i, column);
  if (v.empty()) return fallback;
  if (v != "yes" && v != "no") t.fail(i, column + " '" + v + "' is not yes or no");
  return v == "yes";
}

PublishedRow row_of(const CsvTable& t, std::size_t i, const std::string& catalog_dir) {
  PublishedRow r;
  r.where = t.path() + ":" + std::to_string(t.line(i));
  r.series = t.text(i, "series");
  r.model = model_of(t.text(i, "model"), t.path());
  try {
    load_model(r.model, catalog_dir);
  } catch (const UsageError& e) {
    t.fail(i, e.what());
  }
  r.gpu = t.text(i, "gpu");
  if (!find_gpu_peak(r.gpu)) t.fail(i, "gpu '" + r.gpu + "' is not one of a100 h100 h200 b200");
  r.gpus_per_node = static_cast<int>(t.positive(i, "gpus_per_node", true));
  r.nodes = static_cast<int>(t.positive(i, "nodes", true));
  r.fabric = t.text(i, "fabric");
  r.plan = t.text(i, "plan");
  r.sharding = t.text(i, "sharding");
  r.micro_batch = static_cast<std::int64_t>(t.positive(i, "micro_batch", true));
  r.grad_accum = static_cast<int>(t.positive(i, "grad_accum", true));
  r.seq = static_cast<std::int64_t>(t.positive(i, "seq", true));
  const std::string& ac = t.text(i, "ac");
  if (ac != "yes" && ac != "no") t.fail(i, "ac '" + ac + "' is not yes or no");
  r.activation_checkpointing = ac == "yes";
  r.reduce_dtype = t.text(i, "reduce_dtype");
  r.tokens_per_s_per_gpu = t.positive(i, "tokens_per_s_per_gpu", false);
  if (!parse_series_band(t.text(i, "band"), r.band))
    t.fail(i, "band '" + t.text(i, "band") +
                  "' is not points (e.g. 2), 'POINTS diagnose TERM', absolute, or 'report TERM'");
  const std::string role = t.optional_text(i, "role");
  if (!role.empty() && role != "declared" && role != "held_out")
    t.fail(i, "role '" + role + "' is not declared or held_out");
  r.declared = role == "declared";
  if (r.declared && r.band.kind != SeriesBand::Kind::points)
    t.fail(i, "a declared row calibrates per-GPU ratios: its band must be points, not '" +
                  r.band.text + "'");
  r.source = t.text(i, "source");
  r.compute = t.optional_text(i, "compute");
  if (!t.optional_text(i, "tp").empty()) r.tp = static_cast<int>(t.positive(i, "tp", true));
  r.distributed_optimizer = yes_no(t, i, "distributed_optimizer", false);
  r.async_tp = yes_no(t, i, "async_tp", false);
  if (!t.optional_text(i, "ddp_bucket_size").empty())
    r.ddp_bucket_size = static_cast<std::int64_t>(t.positive(i, "ddp_bucket_size", true));
  if (!t.optional_text(i, "pp").empty()) r.pp = static_cast<int>(t.positive(i, "pp", true));
  r.pp_schedule = t.optional_text(i, "pp_schedule");
  if (!t.optional_text(i, "tp_style").empty()) r.tp_style = t.optional_text(i, "tp_style");
  if (!t.optional_text(i, "loss").empty()) r.loss = t.optional_text(i, "loss");
  if (!t.optional_text(i, "gpu_memory_gib").empty())
    r.gpu_memory_gib = t.positive(i, "gpu_memory_gib", false);
  if (!t.optional_text(i, "optimizer_states").empty()) {
    r.optimizer_states = t.optional_text(i, "optimizer_states");
    try {
      parse_optimizer_states(r.optimizer_states);
    } catch (const UsageError&) {
      t.fail(i, "optimizer_states '" + r.optimizer_states +
                    "' is not plan, fp32 or fp32-remainders");
    }
  }
  return r;
}

}  // namespace

bool parse_series_band(const std::string& text, SeriesBand& band) {
  band = SeriesBand{};
  band.text = text;
  if (text == "absolute") {
    band.kind = SeriesBand::Kind::absolute;
    return true;
  }
  const std::string prefix = kReport;
  if (text.rfind(prefix, 0) == 0) {
    band.kind = SeriesBand::Kind::reported;
    band.term = text.substr(prefix.size());
    return !band.term.empty() && band.term.find(' ') == std::string::npos;
  }
  std::string points = text;
  if (const std::size_t at = text.find(kDiagnose); at != std::string::npos) {
    band.term = text.substr(at + std::string(kDiagnose).size());
    points = text.substr(0, at);
    if (band.term.empty() || band.term.find(' ') != std::string::npos) return false;
  }
  std::size_t used = 0;
  try {
    band.points = std::stod(points, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == points.size() && band.points >= 0 && band.points < 100;
}

std::vector<PublishedRow> read_published_fixture(const std::string& path,
                                                 const std::string& catalog_dir) {
  const CsvTable table(path, "--check");
  std::string header;
  for (const std::string& c : kColumns) header += (header.empty() ? "header: " : ",") + c;
  table.require_columns(kColumns, header);
  if (table.size() == 0) throw UsageError(path + ": no rows");
  std::vector<PublishedRow> rows;
  std::map<std::string, std::string> band_of_series;
  for (std::size_t i = 0; i < table.size(); ++i) {
    rows.push_back(row_of(table, i, catalog_dir));
    const PublishedRow& r = rows.back();
    const auto [it, first] = band_of_series.emplace(r.series, r.band.text);
    if (!first && it->second != r.band.text)
      table.fail(i, "series '" + r.series + "' has band '" + it->second + "' above, '" +
                        r.band.text + "' here");
  }
  return rows;
}

}  // namespace collreplay::project
