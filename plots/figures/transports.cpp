// One model's per-layer communication per fabric, side by side: the comm each decoder layer's
// compute must hide (its unit record's comm_ms, the headroom's comm), one bar per fabric and node
// count.
#include <algorithm>
#include <map>
#include <set>

#include <gnuplot-iostream.h>

#include "common/errors.hpp"
#include "plots/figures.hpp"
#include "plots/quantities.hpp"

namespace collreplay::plots {

TransportBars transport_bars(const std::vector<Record>& records) {
  // model -> fabric and nodes -> layer -> run -> the comm the layer's compute must hide (the
  // headroom's comm: quantities.hpp, as the report's tables have it)
  std::map<std::string, std::map<std::string, std::map<int, std::map<std::string, double>>>> comm;
  for (const RunLayers& run : run_layers(records))
    for (const auto& [layer, ms] : run.comm_ms)
      comm[run.model][fabric_nodes_label(run)][layer][run.run] = ms;
  if (comm.empty())
    throw UsageError(
        "no replay unit records of decoder layers with comm_ms: nothing to compare "
        "transports with");
  // The model replayed over the most fabrics (ties: the first by name).
  auto chosen = comm.begin();
  for (auto it = comm.begin(); it != comm.end(); ++it)
    if (it->second.size() > chosen->second.size()) chosen = it;
  TransportBars bars;
  bars.model = chosen->first;
  for (const auto& [label, by_layer] : chosen->second)
    for (const auto& [layer, by_run] : by_layer) {
      std::vector<double> per_run;
      for (const auto& [run, ms] : by_run) per_run.push_back(ms);
      bars.comm_ms[label][layer] = median_of(per_run);
    }
  return bars;
}

FigureFiles plot_transports(const std::vector<Record>& records, const FigureRequest& request) {
  const TransportBars bars = transport_bars(records);
  const auto& transports = bars.comm_ms;
  int layers = 0;
  for (const auto& [name, by_layer] : transports)
    layers = std::max(layers, by_layer.rbegin()->first + 1);
  const double width = 0.8 / static_cast<double>(transports.size());
  std::vector<Series> series;
  int k = 0;
  for (const auto& [name, by_layer] : transports) {
    std::vector<std::vector<double>> rows;
    const double offset = (k - (transports.size() - 1) / 2.0) * width;
    for (const auto& [layer, ms] : by_layer) rows.push_back({layer + offset, ms, width * 0.95});
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
      "Communication each decoder layer's compute must hide, by fabric: " + bars.model +
      "\n(the headroom's comm, as the report's tables; median of runs)";

  return render(request.out_dir, request.name, {1280, 720}, [&](Gnuplot& gp) {
    gp << "set title " << quoted(title) << " font ',15'\n"
       << "set xlabel 'decoder layer'\n"
       << "set ylabel 'communication to hide per layer (ms)'\n"
       << "set xrange [-0.6:" << layers - 0.4 << "]\n"
       << "set xtics " << (layers > 32 ? 4 : 1) << "\n"
       << "set yrange [0:*]\n"
       << "set grid noxtics\n"
       << "set key outside right top vertical\n";
    plot(gp, series);
  });
}

}  // namespace collreplay::plots
