// One model's per-layer communication time per transport, side by side: the comm-only time of
// the collectives of each decoder layer (slowest rank), one bar per transport.
#include <algorithm>
#include <map>
#include <set>

#include <gnuplot-iostream.h>

#include "common/errors.hpp"
#include "plots/figures.hpp"

namespace collreplay::plots {

FigureFiles plot_transports(const std::vector<Record>& records, const FigureRequest& request) {
  const ModelIndex models = index_models(records);
  // model -> transport (fabric when emulated) -> layer -> run -> summed comm ms
  std::map<std::string, std::map<std::string, std::map<int, std::map<std::string, double>>>> comm;
  for (const Record* r : of_kind(records, "op")) {
    if (text_at(r->data, "stream").value_or("") != "comm") continue;
    const auto layer = number_at(r->data, "layer");
    auto ms = number_at(r->data, "comm_only_ms/max");
    if (!ms) ms = number_at(r->data, "comm_only_ms");
    if (!layer || *layer < 0 || !ms) continue;
    const std::string transport =
        fabric_of(r->data) +
        (nodes_of(r->data) > 1 ? ", " + std::to_string(nodes_of(r->data)) + " nodes" : "");
    comm[model_of(r->data, models)][transport][static_cast<int>(*layer)][run_key(r->data)] += *ms;
  }
  if (comm.empty())
    throw UsageError(
        "no replay op records of comm ops with comm_only_ms: nothing to compare "
        "transports with");
  // The model replayed over the most transports (ties: the first by name).
  auto chosen = comm.begin();
  for (auto it = comm.begin(); it != comm.end(); ++it)
    if (it->second.size() > chosen->second.size()) chosen = it;
  const auto& transports = chosen->second;

  int layers = 0;
  for (const auto& [name, by_layer] : transports)
    layers = std::max(layers, by_layer.rbegin()->first + 1);
  const double width = 0.8 / static_cast<double>(transports.size());
  std::vector<Series> series;
  int k = 0;
  for (const auto& [name, by_layer] : transports) {
    std::vector<std::vector<double>> rows;
    const double offset = (k - (transports.size() - 1) / 2.0) * width;
    for (const auto& [layer, by_run] : by_layer) {
      std::vector<double> per_run;
      for (const auto& [run, ms] : by_run) per_run.push_back(ms);
      rows.push_back({layer + offset, median_of(per_run), width * 0.95});
    }
    series.push_back({"using 1:2:3 with boxes fs solid 0.8 noborder lc " + colour(k++) + " title " +
                          quoted(name),
                      rows});
    // Values on the bars while they stay legible: small bars beside big ones are otherwise
    // unreadable.
    if (layers * transports.size() <= 40)
      series.push_back(
          {"using 1:2:(sprintf('%.1f', $2)) with labels offset 0,0.8 font ',10' notitle", rows});
  }
  const std::string title =
      "Per-layer communication time by transport: " + chosen->first +
      "\n(comm-only pass, slowest rank; all collectives of each decoder layer)";

  return render(request.out_dir, request.name, {1280, 720}, [&](Gnuplot& gp) {
    gp << "set title " << quoted(title) << " font ',15'\n"
       << "set xlabel 'decoder layer'\n"
       << "set ylabel 'communication time per layer (ms)'\n"
       << "set xrange [-0.6:" << layers - 0.4 << "]\n"
       << "set xtics " << (layers > 32 ? 4 : 1) << "\n"
       << "set yrange [0:*]\n"
       << "set grid noxtics\n"
       << "set key outside right top vertical\n";
    plot(gp, series);
  });
}

}  // namespace collreplay::plots
