#include "bench/project/fabrics/fabric_comparison.hpp"

#include <cstdio>
#include <ostream>
#include <set>
#include <sstream>

#include "bench/project/project_report.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

// The later fabric's tokens/s over the first's; nullopt when either does not fit.
std::optional<double> ratio(const ProjectionRow& first, const ProjectionRow& other) {
  if (!first.fits || !other.fits || first.tokens_per_s <= 0) return std::nullopt;
  return other.tokens_per_s / first.tokens_per_s;
}

}  // namespace

std::vector<std::string> split_fabrics(const std::string& text) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  std::stringstream list(text);
  std::string name;
  while (std::getline(list, name, ',')) {
    if (name.empty()) throw UsageError("--fabric '" + text + "': an empty fabric name");
    if (!seen.insert(name).second)
      throw UsageError("--fabric '" + text + "': '" + name + "' is named twice");
    names.push_back(name);
  }
  if (names.empty()) throw UsageError("--fabric PROFILE|RESULTS_DIR is required");
  return names;
}

void print_fabric_comparison(const std::vector<FabricProjection>& fabrics, std::ostream& out) {
  if (fabrics.size() < 2) return;
  const FabricProjection& first = fabrics.front();
  out << "# fabrics side by side: tokens/s per GPU, and each fabric's tokens/s as a fraction of "
      << first.fabric << "'s\n";
  std::string header = "  nodes";
  char cell[64];
  for (const FabricProjection& f : fabrics) {
    std::snprintf(cell, sizeof cell, " %16s", f.fabric.substr(0, 16).c_str());
    header += cell;
  }
  for (std::size_t i = 1; i < fabrics.size(); ++i) {
    std::snprintf(cell, sizeof cell, " %16s", ("ratio " + fabrics[i].fabric).substr(0, 16).c_str());
    header += cell;
  }
  out << header << "\n";
  for (std::size_t row = 0; row < first.rows.size(); ++row) {
    std::snprintf(cell, sizeof cell, "%7d", first.rows[row].nodes);
    std::string line = cell;
    for (const FabricProjection& f : fabrics) {
      const ProjectionRow& r = f.rows.at(row);
      std::snprintf(cell, sizeof cell, " %16s",
                    r.fits ? format_value("%.0f", r.tokens_per_s_per_gpu).c_str() : "no fit");
      line += cell;
    }
    for (std::size_t i = 1; i < fabrics.size(); ++i) {
      const std::optional<double> q = ratio(first.rows[row], fabrics[i].rows.at(row));
      std::snprintf(cell, sizeof cell, " %16s", q ? format_value("%.3f", *q).c_str() : "-");
      line += cell;
    }
    out << line << "\n";
  }
  for (const FabricProjection& f : fabrics)
    out << "# tipping point on " << f.fabric << ": " << tipping_text(f.tip) << "\n";
}

std::vector<nlohmann::json> fabric_comparison_json(const std::vector<FabricProjection>& fabrics,
                                                   const std::string& model) {
  std::vector<nlohmann::json> records;
  if (fabrics.size() < 2) return records;
  const FabricProjection& first = fabrics.front();
  for (std::size_t row = 0; row < first.rows.size(); ++row) {
    nlohmann::json tokens = nlohmann::json::object(), ratios = nlohmann::json::object();
    for (std::size_t i = 0; i < fabrics.size(); ++i) {
      const ProjectionRow& r = fabrics[i].rows.at(row);
      tokens[fabrics[i].fabric] = r.fits ? nlohmann::json(r.tokens_per_s) : nlohmann::json();
      if (i == 0) continue;
      const std::optional<double> q = ratio(first.rows[row], r);
      ratios[fabrics[i].fabric] = q ? nlohmann::json(*q) : nlohmann::json();
    }
    records.push_back({{"record", "fabric_comparison"},
                       {"model", model},
                       {"nodes", first.rows[row].nodes},
                       {"baseline", first.fabric},
                       {"tokens_per_s", tokens},
                       {"ratio_to_baseline", ratios}});
  }
  return records;
}

}  // namespace collreplay::project
