// Overlap headroom vs node count: the mission's headline figure. With several models, a panel
// each: a 72B layer's deficit on a slow fabric is seconds where a 0.5B layer's is milliseconds,
// and one shared axis would flatten every model but one.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include <gnuplot-iostream.h>

#include "common/errors.hpp"
#include "plots/figures.hpp"
#include "plots/headroom_lines.hpp"

namespace collreplay::plots {
namespace {

std::string nodes_text(double nodes) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", nodes);
  return text;
}

std::string ms_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, std::fabs(ms) < 10 ? "%.2f ms" : "%.0f ms", ms);
  return text;
}

// One panel: its title, the gnuplot settings before its plot command, and its series.
struct Panel {
  std::string title, setup;
  std::vector<Series> series;
};

// A label stacked in the panel's top-right corner, where falling headroom leaves room: `slot`
// keeps two from printing over each other.
std::string corner_label(int slot, const std::string& text, int colour_index) {
  return "set label " + std::to_string(100 + slot) + " " + quoted(text) + " at graph 0.98, graph " +
         std::to_string(0.95 - 0.08 * slot) + " right tc " + colour(colour_index) + " front\n";
}

Panel panel_of(const std::string& model, const ModelLines& lines,
               const std::map<std::string, int>& fabric_colour, bool one_model) {
  Panel out;
  double lo_ms = 0, hi_ms = 0;  // zero always in view
  for (const auto& [fabric, line] : lines.by_fabric)
    for (const auto* points : {&line.measured, &line.projected})
      for (const HeadroomPoint& p : *points) {
        lo_ms = std::min(lo_ms, p.lo_ms);
        hi_ms = std::max(hi_ms, p.hi_ms);
      }
  // A slow fabric's deficit can be a thousand times the fast one's surplus: the axis stops at
  // three times the largest surplus, so that the crossing stays readable, and says what it cut.
  const double floor_ms = hi_ms > 0 ? std::max(lo_ms, -3 * hi_ms) : lo_ms;
  int slot = 0, tipping_count = 0;
  struct Clipped {
    double nodes, headroom_ms;
    int colour_index;
  };
  std::vector<Clipped> clipped;  // points below the axis's floor
  for (const auto& [fabric, line] : lines.by_fabric) {
    const int index = fabric_colour.at(fabric);
    const std::string lc = " lc " + colour(index);
    const std::string name = one_model ? model + " on " + fabric : fabric;
    if (!line.projected.empty()) {
      std::vector<std::vector<double>> band, mid;
      for (const HeadroomPoint& p : line.projected) {
        band.push_back({p.nodes, p.lo_ms, p.hi_ms});
        mid.push_back({p.nodes, p.headroom_ms});
      }
      out.series.push_back(
          {"using 1:2:3 with filledcurves fs transparent solid 0.15 noborder" + lc + " notitle",
           band});
      out.series.push_back(
          {"using 1:2 with lines lw 2.5 dt (10,6)" + lc + " title " + quoted(name + ", projected"),
           mid});
    }
    if (!line.measured.empty()) {
      std::vector<std::vector<double>> rows;
      for (const HeadroomPoint& p : line.measured) rows.push_back({p.nodes, p.headroom_ms});
      out.series.push_back({"using 1:2 with linespoints lw 2.5 pt 7 ps 1.6" + lc + " title " +
                                quoted(name + ", measured"),
                            rows});
    }
    // The marker: where the measurements cross zero, else the projection's own tipping point, a
    // bar over its range where its band straddles zero.
    const bool by_measured = crossing_nodes(line.measured) || line.projected.empty();
    if (by_measured) {
      if (const std::optional<double> tip = crossing_nodes(line.measured))
        out.series.push_back(
            {"using 1:2 with points pt 9 ps 3" + lc +
                 (tipping_count++ ? " notitle" : " title 'tipping point (headroom = 0)'"),
             {{*tip, 0.0}}});
    } else if (line.tip_from_nodes) {
      const double from = *line.tip_from_nodes;
      const double to = line.tip_to_nodes ? *line.tip_to_nodes : line.projected.back().nodes;
      const double at = line.tip_nodes ? *line.tip_nodes : from;
      out.series.push_back({"using 1:2:3:4 with xerrorbars pt 9 ps 3 lw 3" + lc +
                                (tipping_count++ ? " notitle"
                                                 : " title 'tipping point (bar: its range)'"),
                            {{at, 0.0, from, to}}});
    }
    const bool verdict = !line.measured.empty() || !line.projected.empty();
    if (verdict)
      out.setup += corner_label(slot++, name + ": " + line_tipping_words(line), index);
    if (const std::string scaling = scaling_words(line); !scaling.empty())
      out.setup += corner_label(slot++, "  " + scaling, index);
    // Points below the axis are drawn on its floor, pointing down, with their value.
    for (const auto* points : {&line.measured, &line.projected})
      for (const HeadroomPoint& p : *points)
        if (p.headroom_ms < floor_ms) clipped.push_back({p.nodes, p.headroom_ms, index});
  }
  const double span_ms = std::max(hi_ms - floor_ms, 1e-3);
  char range[96];
  // Room above the data for the corner labels, a line each: a line that stays high (a fabric
  // that never tips) would otherwise run through them.
  const double label_room = 0.12 + 0.1 * slot;
  std::snprintf(range, sizeof range, "set yrange [%g:%g]\n", floor_ms - 0.08 * span_ms,
                hi_ms + label_room * span_ms);
  out.setup += range;
  const double axis_floor_ms = floor_ms - 0.04 * span_ms;
  std::map<double, int> at_nodes;  // labels already at a node count: the next one goes above them
  for (const Clipped& c : clipped) {
    const int stacked = at_nodes[c.nodes]++;
    out.series.push_back({"using 1:2 with points pt 11 ps 2 lc " + colour(c.colour_index) +
                              " notitle",
                          {{c.nodes, axis_floor_ms}}});
    out.setup += "set label " + quoted(ms_text(c.headroom_ms)) + " at " + nodes_text(c.nodes) +
                 "," + std::to_string(axis_floor_ms) + " offset 0," + std::to_string(1.2 + 1.1 * stacked) +
                 " center font ',10' tc " +
                 colour(c.colour_index) + " front\n";
  }
  out.title = model + (lines.workload.empty() ? "" : ": " + lines.workload) +
              (clipped.empty() ? "" : "\n(▼ on the floor: below the axis, value beside it)");
  return out;
}

}  // namespace

FigureFiles plot_headroom(const std::vector<Record>& records, const FigureRequest& request) {
  const std::map<std::string, ModelLines> lines = headroom_lines(records);
  if (lines.empty())
    throw UsageError(
        "no replay unit records (headroom_ms) and no projection records: nothing "
        "to draw headroom from");
  double min_nodes = 1e9, max_nodes = 0;
  bool any_projected = false;
  std::map<std::string, int> fabric_colour;  // one colour per fabric in every panel
  for (const auto& [model, model_lines] : lines)
    for (const auto& [fabric, line] : model_lines.by_fabric) {
      fabric_colour.emplace(fabric, static_cast<int>(fabric_colour.size()));
      any_projected |= !line.projected.empty();
      for (const auto* points : {&line.measured, &line.projected})
        for (const HeadroomPoint& p : *points) {
          min_nodes = std::min(min_nodes, p.nodes);
          max_nodes = std::max(max_nodes, p.nodes);
        }
    }
  const bool one_model = lines.size() == 1;
  std::vector<Panel> panels;
  for (const std::string& model : model_order(lines))
    panels.push_back(panel_of(model, lines.at(model), fabric_colour, one_model));

  const int columns = one_model ? 1 : 2;
  const int rows = (static_cast<int>(panels.size()) + columns - 1) / columns;
  const std::string title =
      std::string("Overlap headroom per decoder layer vs node count\n") +
      (any_projected ? "points: measured; dashed lines and bands: projected; " : "") +
      "above zero, communication hides behind compute";
  const FigureSize size = one_model ? FigureSize{1280, 760} : FigureSize{1500, 130 + 540 * rows};
  return render(request.out_dir, request.name, size, [&](Gnuplot& gp) {
    if (!one_model)
      gp << "set multiplot layout " << rows << "," << columns << " title " << quoted(title)
         << " font ',16'\n";
    gp << "set xlabel 'nodes (log_2 scale)'\n"
       << "set ylabel 'headroom per decoder layer (ms)'\n"
       << "set logscale x 2\n"
       << "set xrange [" << min_nodes / 1.25 << ":" << max_nodes * 1.25 << "]\n"
       << "set format x '%g'\n"
       << "set xtics 2\n"
       << "set xzeroaxis lt -1 lw 2\n";
    for (const Panel& panel : panels) {
      gp << "unset label\n"
         << "set title " << quoted(one_model ? title : panel.title) << " font ',"
         << (one_model ? 15 : 13) << "'\n"
         << (one_model ? key_below(static_cast<int>(panel.series.size()), 5)
                       : "set key outside below vertical maxrows 3 font ',11'\n")
         << panel.setup;
      plot(gp, panel.series);
    }
    if (!one_model) gp << "unset multiplot\n";
  });
}

}  // namespace collreplay::plots
