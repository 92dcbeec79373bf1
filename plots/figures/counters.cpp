// Counter time series like a cluster dashboard: one small panel per run (fabric and node count)
// and counter source (NIC, InfiniBand, GPU), a line per host:device (transmit solid, receive
// dashed in the same colour), each run on its own clock. One panel of every run's series was
// unreadable (a 4-node sweep of two fabrics is 28 lines).
#include <algorithm>
#include <map>

#include <gnuplot-iostream.h>

#include "common/errors.hpp"
#include "plots/figures.hpp"

namespace collreplay::plots {
namespace {

using Rows = std::vector<std::vector<double>>;

struct Device {
  Rows tx, rx, util;  // (t_s, GB/s) or (t_s, %)
};

// (fabric, nodes) orders the runs as a sweep reads: by fabric, then by node count.
using RunId = std::pair<std::string, int>;
const char* const kSources[] = {"net", "ib", "gpu"};

std::string run_name(const RunId& run) {
  return run.first + ", " + std::to_string(run.second) + (run.second == 1 ? " node" : " nodes");
}

std::string source_name(const std::string& source) {
  return source == "net" ? "NIC (Ethernet)" : source == "ib" ? "InfiniBand" : "GPU utilisation";
}

}  // namespace

FigureFiles plot_counters(const std::vector<Record>& records, const FigureRequest& request) {
  // run -> source -> host:device -> samples
  std::map<RunId, std::map<std::string, std::map<std::string, Device>>> runs;
  std::map<RunId, double> end_s;
  std::map<std::string, double> peak;  // per source: one y range for its panels, so they compare
  for (const Record* r : of_kind(records, "counters")) {
    const auto t = number_at(r->data, "t_s");
    const auto source = text_at(r->data, "source");
    if (!t || !source) continue;
    const RunId run{fabric_of(r->data), nodes_of(r->data)};
    const std::string device =
        text_at(r->data, "host").value_or("?") + ":" + text_at(r->data, "device").value_or("?");
    const std::string kind = *source == "gpu" ? "gpu" : *source == "ib" ? "ib" : "net";
    Device& d = runs[run][kind][device];
    end_s[run] = std::max(end_s[run], *t);
    if (kind == "gpu") {
      if (auto u = number_at(r->data, "util_pct")) d.util.push_back({*t, *u});
      continue;
    }
    for (auto [field, rows] : {std::pair{"tx_bytes_per_s", &d.tx}, {"rx_bytes_per_s", &d.rx}})
      if (auto v = number_at(r->data, field)) {
        rows->push_back({*t, *v / 1e9});
        peak[kind] = std::max(peak[kind], *v / 1e9);
      }
  }
  struct Panel {
    std::string title, source;
    double end_s = 0;
    std::vector<Series> series;
  };
  std::vector<Panel> panels;
  for (auto& [run, sources] : runs)
    for (const char* source : kSources) {
      auto it = sources.find(source);
      if (it == sources.end()) continue;
      Panel panel{
          runs.size() > 1 ? run_name(run) + ": " + source_name(source) : source_name(source),
          source,
          end_s[run],
          {}};
      int index = 0;
      for (auto& [device, d] : it->second) {
        const std::string lc = " lc " + colour(index++);
        for (Rows* rows : {&d.tx, &d.rx, &d.util}) std::sort(rows->begin(), rows->end());
        if (!d.util.empty())
          panel.series.push_back(
              {"using 1:2 with lines lw 2" + lc + " title " + quoted(device), d.util});
        if (!d.tx.empty())
          panel.series.push_back(
              {"using 1:2 with lines lw 2" + lc + " title " + quoted(device + " tx"), d.tx});
        if (!d.rx.empty())
          panel.series.push_back({"using 1:2 with lines lw 1.5 dt (6,4)" + lc + " notitle", d.rx});
      }
      if (!panel.series.empty()) panels.push_back(panel);
    }
  if (panels.empty())
    throw UsageError(
        "no counters records (record: counters, from the monitor): nothing to draw "
        "counter time series from");

  const int columns = std::min<int>(3, static_cast<int>(panels.size()));
  const int rows = (static_cast<int>(panels.size()) + columns - 1) / columns;
  const int width = std::max(1200, 520 * columns), height = std::max(520, 80 + 400 * rows);
  return render(request.out_dir, request.name, {width, height}, [&](Gnuplot& gp) {
    gp << "set multiplot layout " << rows << "," << columns
       << " title 'Counters over each run (traffic: transmit solid, receive dashed)' font ',16'\n"
       << "set key top right font ',10' samplen 2 spacing 1\n"
       << "set xlabel 'time since run start (s)'\n";
    for (const Panel& panel : panels) {
      const bool gpu = panel.source == "gpu";
      gp << "set title " << quoted(panel.title) << " font ',12'\n"
         << "set ylabel " << (gpu ? "'utilisation (%)'" : "'GB/s'") << "\n"
         << "set xrange [0:" << std::max(panel.end_s, 1e-3) << "]\n"
         << "set yrange [0:" << (gpu ? 105.0 : std::max(peak[panel.source] * 1.25, 1e-3)) << "]\n";
      plot(gp, panel.series);
    }
    gp << "unset multiplot\n";
  });
}

}  // namespace collreplay::plots
