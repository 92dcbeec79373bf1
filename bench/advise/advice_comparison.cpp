// advise --fabric a,b: the same layouts weighed on each fabric, side by side.
#include <cstdio>
#include <ostream>

#include "bench/advise/advice_report.hpp"
#include "bench/project/project_report.hpp"

namespace collreplay::advise {

void print_layouts_side_by_side(const std::vector<std::vector<Advice>>& rankings,
                                const std::vector<std::string>& fabric_labels, std::ostream& out) {
  if (rankings.size() < 2) return;
  out << "# every layout's whole-job tokens/s on each fabric (the detail behind the answer "
         "below)\n";
  char cell[96];
  std::snprintf(cell, sizeof cell, "%-22s", "layout");
  std::string header = cell;
  for (const std::string& label : fabric_labels) {
    std::snprintf(cell, sizeof cell, " %14s", label.substr(0, 14).c_str());
    header += cell;
  }
  out << header << "\n";
  // In the first fabric's order; every ranking holds the same layouts.
  for (const Advice& a : rankings.front()) {
    if (!a.projection) continue;  // a layout that does not apply anywhere
    std::snprintf(cell, sizeof cell, "%-22s", a.name().c_str());
    std::string line = cell;
    for (const auto& ranking : rankings) {
      const Advice* on = project::same_layout(ranking, a);
      const std::string tokens = on && on->fits
                                     ? project::format_value("%.0f", on->projection->tokens_per_s)
                                     : std::string("no fit");
      std::snprintf(cell, sizeof cell, " %14s", tokens.c_str());
      line += cell;
    }
    out << line << "\n";
  }
}

}  // namespace collreplay::advise
