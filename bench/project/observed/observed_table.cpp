#include "bench/project/observed/observed_table.hpp"

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/errors.hpp"
#include "workloads/model/model.hpp"

namespace collreplay::project {
namespace {

const char* const kColumns[] = {"model", "nodes",  "gpus_per_node",       "micro_batch",
                                "seq",   "fabric", "tokens_per_s_per_gpu"};

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) fields.push_back(trimmed(field));
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

// Reads one table line by line, naming the place of every problem.
class TableReader {
 public:
  explicit TableReader(std::string path) : path_(std::move(path)) {}

  std::vector<ObservedRow> read() {
    std::ifstream in(path_);
    if (!in) throw UsageError("--observed: cannot read '" + path_ + "'");
    std::string line;
    while (std::getline(in, line)) {
      ++line_;
      const std::string text = trimmed(line);
      if (text.empty() || text[0] == '#') continue;
      if (column_.empty())
        header(fields_of(text));
      else
        rows_.push_back(row(fields_of(text)));
    }
    if (column_.empty()) throw UsageError(path_ + ": no header line");
    if (rows_.size() < 2)
      throw UsageError(path_ + ": " + std::to_string(rows_.size()) +
                       " row(s); a fit needs several runs (at least one at 1 node and more)");
    return rows_;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError(path_ + ":" + std::to_string(line_) + ": " + what);
  }

  void header(const std::vector<std::string>& names) {
    for (std::size_t i = 0; i < names.size(); ++i) column_[names[i]] = i;
    for (const char* name : kColumns)
      if (!column_.count(name))
        fail(std::string("missing column '") + name +
             "' (header: model,micro_batch,seq,nodes,gpus_per_node,fabric,tokens_per_s_per_gpu)");
  }

  const std::string& field(const std::vector<std::string>& fields, const char* name) const {
    const std::size_t at = column_.at(name);
    if (at >= fields.size() || fields[at].empty()) fail(std::string("no value for '") + name + "'");
    return fields[at];
  }

  double positive(const std::vector<std::string>& fields, const char* name, bool integer) const {
    const std::string& text = field(fields, name);
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || !std::isfinite(value) || value <= 0 ||
        (integer && (value != std::floor(value) || value > 1e9)))
      fail(std::string(name) + " '" + text + "' is not a positive " +
           (integer ? "integer" : "number"));
    return value;
  }

  ObservedRow row(const std::vector<std::string>& fields) const {
    ObservedRow r;
    r.line = line_;
    r.model = field(fields, "model");
    r.fabric = field(fields, "fabric");
    r.micro_batch = static_cast<std::int64_t>(positive(fields, "micro_batch", true));
    r.seq = static_cast<std::int64_t>(positive(fields, "seq", true));
    r.nodes = static_cast<int>(positive(fields, "nodes", true));
    r.gpus_per_node = static_cast<int>(positive(fields, "gpus_per_node", true));
    r.tokens_per_s_per_gpu = positive(fields, "tokens_per_s_per_gpu", false);
    return r;
  }

  std::string path_;
  int line_ = 0;
  std::map<std::string, std::size_t> column_;
  std::vector<ObservedRow> rows_;
};

}  // namespace

std::vector<ObservedRow> read_observed_table(const std::string& path,
                                             const std::string& catalog_dir) {
  std::vector<ObservedRow> rows = TableReader(path).read();
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
