// Bus bandwidth vs message size per transport x op (nccl-tests conventions), with the sizes the
// replayed models' per-layer collectives have marked on the size axis.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include <gnuplot-iostream.h>

#include "common/errors.hpp"
#include "plots/figures.hpp"
#include "plots/quantities.hpp"

namespace collreplay::plots {
namespace {

std::string size_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, bytes < 10 ? "%.1f %s" : "%.0f %s", bytes, units[unit]);
  return text;
}

// Per curve (quantities.hpp: one fabric over one transport, op, placement and node count):
// bytes -> busbw samples; an emulated fabric's line rate per size (bench/app/run/line_rate.hpp: the
// most busbw its node links allow for that op and placement) and the points measured above it.
// In-place and out-of-place rows are one curve each; where both exist only out-of-place is drawn,
// what nccl-tests leads with.
struct BusbwCurves {
  std::map<std::string, std::map<double, std::vector<double>>> samples;
  std::map<std::string, std::map<double, double>> line_rate;
  std::map<std::string, std::vector<std::vector<double>>> above;
};

BusbwCurves busbw_curves(const std::vector<Record>& records) {
  bool any_out_of_place = false;
  for (const Record* r : of_kind(records, "perf"))
    if (text_at(r->data, "placement").value_or("") == "out_of_place") any_out_of_place = true;
  BusbwCurves c;
  for (const Record* r : of_kind(records, "perf")) {
    const auto bytes = number_at(r->data, "bytes");
    const auto busbw = number_at(r->data, "busbw_GBps");
    const auto op = text_at(r->data, "op");
    if (!bytes || !busbw || !op || *bytes <= 0) continue;
    if (any_out_of_place &&
        text_at(r->data, "placement").value_or("out_of_place") != "out_of_place")
      continue;
    const std::string curve = busbw_curve(r->data);
    c.samples[curve][*bytes].push_back(*busbw);
    if (auto limit = number_at(r->data, "line_rate_busbw_GBps")) c.line_rate[curve][*bytes] = *limit;
    if (r->data.value("above_line_rate", false)) c.above[curve].push_back({*bytes, *busbw});
  }
  if (c.samples.empty())
    throw UsageError(
        "no perf records (bytes, busbw_GBps) from the *_perf programs: nothing to "
        "draw bus bandwidth from");
  return c;
}

}  // namespace

FigureFiles plot_busbw(const std::vector<Record>& records, const FigureRequest& request) {
  const BusbwCurves c = busbw_curves(records);
  const auto& curves = c.samples;
  const auto& line_rate = c.line_rate;
  const auto& above = c.above;

  // The replayed models' per-layer collective sizes (decoder layers; the root's are larger).
  const ModelIndex models = index_models(records);
  std::map<std::string, std::set<double>> sizes;  // model -> bytes
  for (const Record* r : of_kind(records, "op")) {
    const auto bytes = number_at(r->data, "bytes");
    const auto kind = text_at(r->data, "kind");
    const auto layer = number_at(r->data, "layer");
    if (!bytes || !kind || !layer || *layer < 0) continue;
    const std::string model = model_of(r->data, models);
    sizes[model].insert(*bytes);
  }

  double min_bytes = 1e30, max_bytes = 0, min_busbw = 1e30, max_busbw = 0;
  std::vector<Series> series;
  std::set<std::string> rated_fabrics;  // a fabric's line rate is one key entry, not one a curve
  int index = 0;
  for (const auto& [name, points] : curves) {
    std::vector<std::vector<double>> rows;
    for (const auto& [bytes, values] : points) {
      rows.push_back({bytes, median_of(values)});
      min_busbw = std::min(min_busbw, rows.back()[1]);
      max_busbw = std::max(max_busbw, rows.back()[1]);
      min_bytes = std::min(min_bytes, bytes);
      max_bytes = std::max(max_bytes, bytes);
    }
    series.push_back({"using 1:2 with linespoints lw 2.5 pt 7 ps 1.2 lc " + colour(index) +
                          " title " + quoted(name),
                      rows});
    if (line_rate.count(name)) {
      std::vector<std::vector<double>> limit;
      for (const auto& [bytes, gbps] : line_rate.at(name)) {
        limit.push_back({bytes, gbps});
        max_busbw = std::max(max_busbw, gbps);
      }
      const std::string fabric = name.substr(0, name.find(' '));
      const std::string title = rated_fabrics.insert(fabric).second
                                    ? " title " + quoted(fabric + ": the profile's line rate")
                                    : " notitle";
      series.push_back({"using 1:2 with lines lw 1.5 dt (6,4) lc " + colour(index) + title, limit});
    }
    if (above.count(name))
      series.push_back({"using 1:2 with points pt 2 ps 2.5 lw 2 lc " + colour(index) + " title " +
                            quoted(name + ": above its line rate (not possible; a shaper's burst)"),
                        above.at(name)});
    ++index;
  }
  std::vector<std::string> marks;
  int model_index = 0, mark_id = 200;
  for (const auto& [model, set] : sizes) {
    const std::string lc = " lc rgb '" + std::string(model_index % 2 ? "#555555" : "#000000") + "'";
    const std::string dt = model_index % 2 ? " dt (4,4)" : " dt (12,6)";
    series.push_back(
        {"with lines lw 2" + lc + dt + " title " + quoted(model + ": per-layer collective sizes"),
         {},
         "NaN"});
    for (double bytes : set) {
      min_bytes = std::min(min_bytes, bytes);
      max_bytes = std::max(max_bytes, bytes);
      marks.push_back("set arrow " + std::to_string(mark_id++) + " from " + std::to_string(bytes) +
                      ", graph 0 to " + std::to_string(bytes) + ", graph 1 nohead lw 2" + lc + dt +
                      " back");
      marks.push_back("set label " + std::to_string(mark_id++) + " " +
                      quoted(model + " " + size_text(bytes)) + " at " + std::to_string(bytes) +
                      ", graph 0.98 rotate by 90 right offset -0.8,0 font ',10' front");
    }
    ++model_index;
  }

  return render(request.out_dir, request.name, {1280, 760}, [&](Gnuplot& gp) {
    gp << "set title 'Bus bandwidth vs message size (nccl-tests conventions)' font ',16'\n"
       << "set xlabel 'message size (bytes, log scale)'\n"
       << "set ylabel 'bus bandwidth (GB/s)'\n"
       << "set logscale x 2\n"
       << "set xrange [" << min_bytes / 1.5 << ":" << max_bytes * 1.5
       << "]\n"
       // Transports two orders of magnitude apart (NVLink vs sockets) need a log axis to both show.
       << (max_busbw > 20 * std::max(min_busbw, 1e-9) ? "set logscale y 10\nset yrange [*:*]\n"
                                                      : "set yrange [0:*]\n")
       << "set format x '%.0b %BB'\n"
       << "set xtics 1, 4\n"
       << key_below(static_cast<int>(series.size()), 4);
    for (const std::string& mark : marks) gp << mark << "\n";
    plot(gp, series);
  });
}

}  // namespace collreplay::plots
