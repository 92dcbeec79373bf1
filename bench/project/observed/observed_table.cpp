#include "bench/project/observed/observed_table.hpp"

#include <set>

#include "records/csv_table.hpp"
#include "common/errors.hpp"
#include "workloads/model/model.hpp"

namespace collreplay::project {
namespace {

const std::vector<std::string> kColumns = {"model", "nodes",  "gpus_per_node",       "micro_batch",
                                           "seq",   "fabric", "tokens_per_s_per_gpu"};

std::vector<ObservedRow> read_rows(const std::string& path) {
  const CsvTable t(path, "--observed");
  t.require_columns(kColumns,
                    "header: model,micro_batch,seq,nodes,gpus_per_node,fabric,tokens_per_s_per_gpu");
  std::vector<ObservedRow> rows;
  for (std::size_t i = 0; i < t.size(); ++i) {
    ObservedRow r;
    r.line = t.line(i);
    r.model = t.text(i, "model");
    r.fabric = t.text(i, "fabric");
    r.micro_batch = static_cast<std::int64_t>(t.positive(i, "micro_batch", true));
    r.seq = static_cast<std::int64_t>(t.positive(i, "seq", true));
    r.nodes = static_cast<int>(t.positive(i, "nodes", true));
    r.gpus_per_node = static_cast<int>(t.positive(i, "gpus_per_node", true));
    r.tokens_per_s_per_gpu = t.positive(i, "tokens_per_s_per_gpu", false);
    rows.push_back(r);
  }
  if (rows.size() < 2)
    throw UsageError(path + ": " + std::to_string(rows.size()) +
                     " row(s); a fit needs several runs (at least one at 1 node and more)");
  return rows;
}

}  // namespace

std::vector<ObservedRow> read_observed_table(const std::string& path,
                                             const std::string& catalog_dir) {
  std::vector<ObservedRow> rows = read_rows(path);
  std::set<std::string> checked;
  for (const ObservedRow& r : rows)
    if (checked.insert(r.model).second) load_model(r.model, catalog_dir);  // unknown: UsageError
  return rows;
}

std::vector<ObservedRow> rows_of_fabric(const std::vector<ObservedRow>& rows,
                                        const std::string& fabric, const std::string& path) {
  std::vector<ObservedRow> kept;
  std::set<std::string> labels;
  for (const ObservedRow& r : rows) {
    labels.insert(r.fabric);
    if (r.fabric == fabric) kept.push_back(r);
  }
  if (kept.empty()) {
    std::string known;
    for (const std::string& l : labels) known += (known.empty() ? "" : ", ") + l;
    throw UsageError(path + ": no rows with fabric '" + fabric + "' (the table has: " + known +
                     ")");
  }
  return kept;
}

}  // namespace collreplay::project
