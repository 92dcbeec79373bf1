// advise --fabric a,b: the same layouts weighed on each fabric, side by side.
#include <cstdio>
#include <map>
#include <ostream>

#include "bench/advise/advice_report.hpp"
#include "bench/project/project_report.hpp"

namespace collreplay::advise {
namespace {

using project::format_value;

std::string key_of(const Advice& a) {
  return a.layout.name + (a.recompute ? (*a.recompute ? " +recompute" : "") : "");
}

const Advice* best_of(const std::vector<Advice>& advice) {
  for (const Advice& a : advice)
    if (a.rank && *a.rank == 1) return &a;
  return nullptr;
}

std::string ratio_text(const Advice* base, const Advice* other) {
  if (!base || !other || !base->fits || !other->fits || base->projection->tokens_per_s <= 0)
    return "-";
  return format_value("%.3f", other->projection->tokens_per_s / base->projection->tokens_per_s);
}

}  // namespace

void print_advice_comparison(const std::vector<FabricAdvice>& fabrics, std::ostream& out) {
  if (fabrics.size() < 2) return;
  const FabricAdvice& first = fabrics.front();
  out << "# fabrics side by side: tokens/s of each layout that fits, and as a fraction of "
      << first.labels.fabric << "'s\n";
  char cell[96];
  std::snprintf(cell, sizeof cell, "%-22s", "layout");
  std::string header = cell;
  for (const FabricAdvice& f : fabrics) {
    std::snprintf(cell, sizeof cell, " %14s", f.labels.fabric.substr(0, 14).c_str());
    header += cell;
  }
  for (std::size_t i = 1; i < fabrics.size(); ++i) {
    std::snprintf(cell, sizeof cell, " %14s", ("ratio " + fabrics[i].labels.fabric).substr(0, 14).c_str());
    header += cell;
  }
  out << header << "\n";
  std::vector<std::map<std::string, const Advice*>> by_key(fabrics.size());
  for (std::size_t i = 0; i < fabrics.size(); ++i)
    for (const Advice& a : fabrics[i].advice) by_key[i][key_of(a)] = &a;
  for (const Advice& a : first.advice) {
    if (!a.projection) continue;  // a layout that does not apply anywhere
    std::snprintf(cell, sizeof cell, "%-22s", key_of(a).c_str());
    std::string line = cell;
    for (std::size_t i = 0; i < fabrics.size(); ++i) {
      const Advice* on = by_key[i].count(key_of(a)) ? by_key[i][key_of(a)] : nullptr;
      const std::string tokens = on && on->fits
                                     ? format_value("%.0f", on->projection->tokens_per_s)
                                     : std::string("no fit");
      std::snprintf(cell, sizeof cell, " %14s", tokens.c_str());
      line += cell;
    }
    for (std::size_t i = 1; i < fabrics.size(); ++i) {
      const Advice* on = by_key[i].count(key_of(a)) ? by_key[i][key_of(a)] : nullptr;
      std::snprintf(cell, sizeof cell, " %14s", ratio_text(&a, on).c_str());
      line += cell;
    }
    out << line << "\n";
  }
  const Advice* base_best = best_of(first.advice);
  for (std::size_t i = 1; i < fabrics.size(); ++i) {
    const Advice* best = best_of(fabrics[i].advice);
    out << "# best against best: " << (best ? key_of(*best) : "nothing fits") << " on "
        << fabrics[i].labels.fabric << " gives " << ratio_text(base_best, best) << " of "
        << (base_best ? key_of(*base_best) : "nothing") << " on " << first.labels.fabric
        << "'s tokens/s\n";
  }
}

}  // namespace collreplay::advise
