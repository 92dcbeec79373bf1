// Counter time series like a cluster dashboard: NIC and InfiniBand traffic per host:device
// (transmit solid, receive dashed) and GPU utilisation, one panel each, over the run.
#include <algorithm>
#include <map>
#include <set>

#include <gnuplot-iostream.h>

#include "common/errors.hpp"
#include "plots/figures.hpp"

namespace collreplay::plots {
namespace {

struct Panel {
  std::string title, ylabel;
  std::vector<Series> series;
};

using Samples = std::map<std::string, std::vector<std::vector<double>>>;  // host:device -> rows

Panel traffic_panel(const Samples& tx, const Samples& rx, const std::string& what) {
  Panel panel{what + " traffic per device", "GB/s", {}};
  int index = 0;
  for (const auto& [device, rows] : tx) {
    const std::string lc = " lc " + colour(index++);
    panel.series.push_back(
        {"using 1:2 with lines lw 2" + lc + " title " + quoted(device + " tx"), rows});
    if (auto it = rx.find(device); it != rx.end())
      panel.series.push_back(
          {"using 1:2 with lines lw 2 dt (6,4)" + lc + " title " + quoted(device + " rx"),
           it->second});
  }
  return panel;
}

}  // namespace

FigureFiles plot_counters(const std::vector<Record>& records, const FigureRequest& request) {
  std::map<std::string, Samples> tx, rx;  // source -> ...
  Samples util;
  double end_s = 0;
  // Each run's clock starts at 0: counters of several runs (a sweep's node counts, its fabrics)
  // are series of their own, named by run, never one line that jumps between runs.
  const auto run_of = [](const Record* r) {
    const int nodes = nodes_of(r->data);
    return fabric_of(r->data) + ", " + std::to_string(nodes) + (nodes == 1 ? " node" : " nodes");
  };
  std::set<std::string> runs;
  for (const Record* r : of_kind(records, "counters")) runs.insert(run_of(r));
  for (const Record* r : of_kind(records, "counters")) {
    const auto t = number_at(r->data, "t_s");
    const auto source = text_at(r->data, "source");
    if (!t || !source) continue;
    const std::string device = (runs.size() > 1 ? run_of(r) + ": " : std::string()) +
                               text_at(r->data, "host").value_or("?") + ":" +
                               text_at(r->data, "device").value_or("?");
    end_s = std::max(end_s, *t);
    if (*source == "gpu") {
      if (auto u = number_at(r->data, "util_pct")) util[device].push_back({*t, *u});
      continue;
    }
    if (auto v = number_at(r->data, "tx_bytes_per_s"))
      tx[*source][device].push_back({*t, *v / 1e9});
    if (auto v = number_at(r->data, "rx_bytes_per_s"))
      rx[*source][device].push_back({*t, *v / 1e9});
  }
  std::vector<Panel> panels;
  if (tx.count("net")) panels.push_back(traffic_panel(tx["net"], rx["net"], "NIC (Ethernet)"));
  if (tx.count("ib")) panels.push_back(traffic_panel(tx["ib"], rx["ib"], "InfiniBand"));
  if (!util.empty()) {
    Panel panel{"GPU utilisation", "utilisation (%)", {}};
    int index = 0;
    for (const auto& [device, rows] : util)
      panel.series.push_back(
          {"using 1:2 with lines lw 2 lc " + colour(index++) + " title " + quoted(device), rows});
    panels.push_back(panel);
  }
  if (panels.empty())
    throw UsageError(
        "no counters records (record: counters, from the monitor): nothing to draw "
        "counter time series from");
  for (Panel& panel : panels)
    for (Series& s : panel.series) std::sort(s.rows.begin(), s.rows.end());

  // The legend sits right of each panel: as wide as its longest title, and a panel tall enough
  // for its list of devices, so many hosts never cover the traffic they name.
  std::size_t longest_title = 10, most_series = 0;
  for (const Panel& panel : panels) {
    most_series = std::max(most_series, panel.series.size());
    for (const Series& s : panel.series) {
      const auto open = s.style.find("title ");
      if (open != std::string::npos)
        longest_title = std::max(longest_title, s.style.size() - open - 8);
    }
  }
  const int panel_height = std::max(300, 80 + 24 * static_cast<int>(most_series));
  const int height = 100 + panel_height * static_cast<int>(panels.size());
  return render(request.out_dir, request.name, {1280, height}, [&](Gnuplot& gp) {
    gp << "set multiplot layout " << panels.size()
       << ",1 title 'Counters over the run' font ',16'\n"
       << "set xrange [0:" << std::max(end_s, 1e-3) << "]\n"
       << "set key outside right top vertical maxcols 1\n";
    for (std::size_t i = 0; i < panels.size(); ++i) {
      // Margins per panel: multiplot's layout resets them.
      gp << "set lmargin 12\nset rmargin " << longest_title + 10 << "\n"
         << "set title " << quoted(panels[i].title) << "\n"
         << "set ylabel " << quoted(panels[i].ylabel) << "\n"
         << (panels[i].ylabel.starts_with("util") ? "set yrange [0:105]\n" : "set yrange [0:*]\n")
         << "set xlabel " << (i + 1 == panels.size() ? "'time since run start (s)'" : "''") << "\n";
      plot(gp, panels[i].series);
    }
    gp << "unset multiplot\n";
  });
}

}  // namespace collreplay::plots
