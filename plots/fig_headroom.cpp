// Overlap headroom vs node count: the mission's headline figure.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include <gnuplot-iostream.h>

#include "common/errors.hpp"
#include "plots/figures.hpp"

namespace collreplay::plots {
namespace {

struct Point {
  double nodes = 0, headroom_ms = 0, lo_ms = 0, hi_ms = 0;
};

struct Line {
  std::vector<Point> measured, projected;
  std::optional<double> projected_tipping_nodes;  // as the projection reported it
};

using Key = std::pair<std::string, std::string>;  // model, fabric

// Median decoder-layer headroom of each replay run, then the median of runs at one point.
std::map<Key, Line> collect(const std::vector<Record>& records) {
  const ModelIndex models = index_models(records);
  std::map<std::string, std::vector<double>> by_run;  // run_key -> decoder-layer headrooms
  std::map<std::string, const Record*> run_record;
  bool any_decoder = false;
  for (const Record* r : of_kind(records, "unit"))
    if (auto unit = text_at(r->data, "unit"); unit && is_decoder_layer(*unit)) any_decoder = true;
  for (const Record* r : of_kind(records, "unit")) {
    const auto unit = text_at(r->data, "unit");
    const auto headroom = number_at(r->data, "headroom_ms");
    if (!unit || !headroom) continue;
    // Models without numbered layers (hand-made schedules): every unit but the root.
    if (any_decoder ? !is_decoder_layer(*unit) : *unit == "root") continue;
    const std::string key = run_key(r->data);
    by_run[key].push_back(*headroom);
    run_record[key] = r;
  }
  std::map<Key, std::map<int, std::vector<double>>> measured;
  for (const auto& [key, values] : by_run) {
    const nlohmann::json& r = run_record[key]->data;
    measured[{model_of(r, models), fabric_of(r)}][nodes_of(r)].push_back(median_of(values));
  }
  std::map<Key, Line> lines;
  for (const auto& [key, points] : measured)
    for (const auto& [nodes, values] : points) {
      const double h = median_of(values);
      lines[key].measured.push_back({double(nodes), h, h, h});
    }
  for (const Record* r : of_kind(records, "projection")) {
    const auto nodes = number_at(r->data, "nodes");
    const auto h = number_at(r->data, "headroom_ms");
    if (!nodes || !h) continue;
    Line& line = lines[{text_at(r->data, "model").value_or("?"), fabric_of(r->data)}];
    line.projected.push_back({*nodes, *h, number_at(r->data, "headroom_lo_ms").value_or(*h),
                              number_at(r->data, "headroom_hi_ms").value_or(*h)});
    if (auto t = number_at(r->data, "tipping_point_nodes")) line.projected_tipping_nodes = *t;
  }
  for (auto& [key, line] : lines) {
    auto by_nodes = [](const Point& a, const Point& b) { return a.nodes < b.nodes; };
    std::sort(line.measured.begin(), line.measured.end(), by_nodes);
    std::sort(line.projected.begin(), line.projected.end(), by_nodes);
  }
  return lines;
}

// Where headroom first goes from >= 0 to < 0, interpolated on the log2 node axis.
std::optional<double> tipping_point(const std::vector<Point>& points) {
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const Point &a = points[i], &b = points[i + 1];
    if (a.headroom_ms >= 0 && b.headroom_ms < 0) {
      const double f = a.headroom_ms / (a.headroom_ms - b.headroom_ms);
      return std::exp2(std::log2(a.nodes) + f * (std::log2(b.nodes) - std::log2(a.nodes)));
    }
  }
  return std::nullopt;
}

std::string nodes_text(double nodes) {
  char text[32];
  std::snprintf(text, sizeof text, nodes < 10 ? "%.1f" : "%.0f", nodes);
  return text;
}

}  // namespace

FigureFiles plot_headroom(const std::vector<Record>& records, const FigureRequest& request) {
  const std::map<Key, Line> lines = collect(records);
  if (lines.empty())
    throw UsageError(
        "no replay unit records (headroom_ms) and no projection records: nothing "
        "to draw headroom from");
  double min_nodes = 1e9, max_nodes = 0;
  for (const auto& [key, line] : lines)
    for (const auto* points : {&line.measured, &line.projected})
      for (const Point& p : *points) {
        min_nodes = std::min(min_nodes, p.nodes);
        max_nodes = std::max(max_nodes, p.nodes);
      }

  std::vector<Series> series;
  std::vector<std::string> marks;  // tipping-point labels and arrows
  int index = 0, tipping_count = 0;
  bool any_projected = false;
  for (const auto& [key, line] : lines) {
    const std::string name = key.first + " on " + key.second;
    const std::string lc = " lc " + colour(index++);
    if (!line.projected.empty()) {
      any_projected = true;
      std::vector<std::vector<double>> band, mid;
      for (const Point& p : line.projected) {
        band.push_back({p.nodes, p.lo_ms, p.hi_ms});
        mid.push_back({p.nodes, p.headroom_ms});
      }
      series.push_back({"using 1:2:3 with filledcurves fs transparent solid 0.15 noborder" + lc +
                            " title " + quoted(name + ", projected band"),
                        band});
      series.push_back(
          {"using 1:2 with lines lw 2.5 dt (10,6)" + lc + " title " + quoted(name + ", projected"),
           mid});
    }
    if (!line.measured.empty()) {
      std::vector<std::vector<double>> rows;
      for (const Point& p : line.measured) rows.push_back({p.nodes, p.headroom_ms});
      series.push_back({"using 1:2 with linespoints lw 2.5 pt 7 ps 1.6" + lc + " title " +
                            quoted(name + ", measured"),
                        rows});
    }
    std::optional<double> tip = tipping_point(line.measured);
    if (!tip)
      tip = line.projected_tipping_nodes ? line.projected_tipping_nodes
                                         : tipping_point(line.projected);
    if (tip) {
      const std::string at = nodes_text(*tip);
      series.push_back({"using 1:2 with points pt 9 ps 3" + lc +
                            (tipping_count ? " notitle" : " title 'tipping point (headroom = 0)'"),
                        {{*tip, 0.0}}});
      // In the top-right corner, where falling headroom leaves the plot empty, stacked so that
      // two never print over each other and never over a data point near the crossing.
      marks.push_back(
          "set label " + std::to_string(100 + tipping_count) + " " +
          quoted("▲ " + key.first + " on " + key.second + ": tips at ≈" + at + " nodes") +
          " at graph 0.98, graph " + std::to_string(0.95 - 0.07 * tipping_count) + " right tc " +
          colour(index - 1) + " front");
      ++tipping_count;
    }
  }

  return render(request.out_dir, request.name, {1280, 760}, [&](Gnuplot& gp) {
    gp << "set title "
       << quoted(std::string("Overlap headroom per decoder layer vs node count\n") +
                 (any_projected ? "points: measured; dashed lines and bands: projected; " : "") +
                 "above zero, communication hides behind compute")
       << " font ',15'\n"
       << "set xlabel 'nodes (log_2 scale)'\n"
       << "set ylabel 'headroom per decoder layer (ms)'\n"
       << "set logscale x 2\n"
       << "set xrange [" << min_nodes / 1.25 << ":" << max_nodes * 1.25 << "]\n"
       << "set format x '%g'\n"
       << "set xtics 2\n"
       << "set xzeroaxis lt -1 lw 2\n"

       << key_below(static_cast<int>(series.size()), 5)
       << "set offsets 0, 0, graph 0.08, graph 0.08\n";
    for (const std::string& mark : marks) gp << mark << "\n";
    plot(gp, series);
  });
}

}  // namespace collreplay::plots
