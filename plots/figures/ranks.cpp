// The straggler view: each rank's overlapped step time, one cluster of bars per rank and one
// colour per run. Runs that recorded only max / median / min are drawn as those three bars.
#include <algorithm>
#include <map>

#include <gnuplot-iostream.h>

#include "common/errors.hpp"
#include "plots/figures.hpp"

namespace collreplay::plots {
namespace {

struct Run {
  std::string label;
  std::vector<double> step_ms;  // by rank, or fastest / median / slowest
};

std::string label_of(const nlohmann::json& step) {
  return text_at(step, "model").value_or("?") + " on " + fabric_of(step) + ", " +
         std::to_string(nodes_of(step)) + " node(s)";
}

}  // namespace

FigureFiles plot_ranks(const std::vector<Record>& records, const FigureRequest& request) {
  std::vector<Run> by_rank, summary;
  for (const Record* r : of_kind(records, "step")) {
    const nlohmann::json& s = r->data;
    if (s.contains("rank_step_ms_all") && s["rank_step_ms_all"].is_array() &&
        !s["rank_step_ms_all"].empty()) {
      Run run{label_of(s), {}};
      for (const auto& v : s["rank_step_ms_all"])
        run.step_ms.push_back(v.is_number() ? v.get<double>() : 0);
      by_rank.push_back(run);
      continue;
    }
    const std::string p = "passes/overlapped/rank_step_ms/";
    const auto lo = number_at(s, p + "min"), mid = number_at(s, p + "median"),
               hi = number_at(s, p + "max");
    if (lo && mid && hi) summary.push_back({label_of(s), {*lo, *mid, *hi}});
  }
  const bool per_rank = !by_rank.empty();
  const std::vector<Run>& runs = per_rank ? by_rank : summary;
  if (runs.empty())
    throw UsageError(
        "no replay step records with per-rank step times (rank_step_ms_all or "
        "passes.overlapped.rank_step_ms): nothing to draw the straggler view from");

  std::size_t columns = 0;
  for (const Run& run : runs) columns = std::max(columns, run.step_ms.size());
  const double width = 0.8 / static_cast<double>(runs.size());
  std::vector<Series> series;
  std::vector<std::vector<double>> slowest_marks;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    std::vector<std::vector<double>> rows;
    const double offset = (static_cast<double>(k) - (runs.size() - 1) / 2.0) * width;
    for (std::size_t i = 0; i < runs[k].step_ms.size(); ++i)
      rows.push_back({static_cast<double>(i) + offset, runs[k].step_ms[i], width * 0.95});
    series.push_back({"using 1:2:3 with boxes fs solid 0.8 noborder lc " +
                          colour(static_cast<int>(k)) + " title " + quoted(runs[k].label),
                      rows});
    const auto slowest =
        std::max_element(rows.begin(), rows.end(), [](auto& a, auto& b) { return a[1] < b[1]; });
    slowest_marks.push_back({(*slowest)[0], (*slowest)[1]});
  }
  // A marker just above each run's slowest bar.
  double tallest_ms = 0;
  for (const auto& mark : slowest_marks) tallest_ms = std::max(tallest_ms, mark[1]);
  for (auto& mark : slowest_marks) mark[1] += 0.03 * tallest_ms;
  series.push_back(
      {"using 1:2 with points pt 11 ps 1.5 lc rgb 'black' title "
       "'slowest rank of each run'",
       slowest_marks});
  std::string xtics;
  if (!per_rank) {
    xtics = "set xtics ('fastest rank' 0, 'median rank' 1, 'slowest rank' 2)\n";
  } else {
    const int step = columns > 32 ? static_cast<int>(columns / 16) : 1;
    xtics = "set xtics " + std::to_string(step) + "\n";
  }

  return render(request.out_dir, request.name, {1280, 720}, [&](Gnuplot& gp) {
    gp << "set title 'Step time per rank, overlapped pass (the straggler view)' font ',16'\n"
       << "set xlabel " << (per_rank ? "'rank'" : "''") << "\n"
       << "set ylabel 'step time (ms)'\n"
       << "set xrange [-0.6:" << columns - 0.4 << "]\n"
       << "set yrange [0:*]\n"
       << "set offsets 0, 0, graph 0.05, 0\n"
       << "set grid noxtics\n"
       << xtics << key_below(static_cast<int>(series.size()), 4);
    plot(gp, series);
  });
}

}  // namespace collreplay::plots
