// One replayed step as a timeline: compute and comm streams as bars per op (overlapped pass,
// the slowest rank's median step), and the communication no compute hides highlighted.
#include <algorithm>
#include <cstdio>
#include <map>

#include <gnuplot-iostream.h>

#include "common/errors.hpp"
#include "plots/figures.hpp"
#include "plots/quantities.hpp"

namespace collreplay::plots {
namespace {

struct Interval {
  double start_ms, end_ms;
};

std::vector<Interval> merged(std::vector<Interval> spans) {
  std::sort(spans.begin(), spans.end(), [](auto& a, auto& b) { return a.start_ms < b.start_ms; });
  std::vector<Interval> out;
  // Back-to-back ops (a gap of microseconds between them) are one busy stretch.
  const double touching_ms = 0.05;
  for (const Interval& s : spans)
    if (!out.empty() && s.start_ms <= out.back().end_ms + touching_ms)
      out.back().end_ms = std::max(out.back().end_ms, s.end_ms);
    else
      out.push_back(s);
  return out;
}

// Parts of `comm` that no interval of `compute` covers (both merged, sorted).
std::vector<Interval> uncovered(const std::vector<Interval>& comm,
                                const std::vector<Interval>& compute) {
  std::vector<Interval> out;
  for (Interval c : comm) {
    double at = c.start_ms;
    for (const Interval& k : compute) {
      if (k.end_ms <= at || k.start_ms >= c.end_ms) continue;
      if (k.start_ms > at) out.push_back({at, k.start_ms});
      at = std::max(at, k.end_ms);
    }
    if (at < c.end_ms) out.push_back({at, c.end_ms});
  }
  return out;
}

std::vector<double> bar(double start_ms, double end_ms, double row, double half_height) {
  return {(start_ms + end_ms) / 2, row, start_ms, end_ms, row - half_height, row + half_height};
}

// The run drawn, its bars per category and the idle-compute stretches.
struct TimelineData {
  TimelineFacts facts;
  std::vector<const Record*> ops;
  std::map<std::string, std::vector<std::vector<double>>> bars;
  std::vector<std::vector<double>> idle_bars;
};

TimelineData timeline_data(const std::vector<Record>& records) {
  // The run on the most nodes (the first of those in file order) whose op records carry
  // start_ms/end_ms: a multi-node step is where communication has something to hide behind.
  TimelineData d;
  int chosen_nodes = 0;
  for (const Record* r : of_kind(records, "op"))
    if (number_at(r->data, "start_ms") && number_at(r->data, "end_ms") &&
        nodes_of(r->data) > chosen_nodes) {
      d.facts.run = run_key(r->data);
      chosen_nodes = nodes_of(r->data);
    }
  for (const Record* r : of_kind(records, "op"))
    if (run_key(r->data) == d.facts.run && number_at(r->data, "start_ms") &&
        number_at(r->data, "end_ms"))
      d.ops.push_back(r);
  if (d.ops.empty())
    throw UsageError(
        "no replay op records with start_ms/end_ms (a replay of this version writes "
        "them): nothing to draw a step timeline from");
  // Style per category: compute by phase, comm by collective kind.
  std::vector<Interval> compute, comm;
  for (const Record* r : d.ops) {
    const double start = *number_at(r->data, "start_ms"), end = *number_at(r->data, "end_ms");
    if (end <= start) continue;
    d.facts.step_ms = std::max(d.facts.step_ms, end);
    const bool is_comm = text_at(r->data, "stream").value_or("compute") == "comm";
    const std::string category = is_comm ? text_at(r->data, "kind").value_or("collective")
                                         : "compute " + text_at(r->data, "phase").value_or("");
    d.bars[category].push_back(bar(start, end, is_comm ? 1 : 2, 0.32));
    (is_comm ? comm : compute).push_back({start, end});
  }
  for (const Interval& e : uncovered(merged(comm), merged(compute))) {
    d.facts.idle_comm_ms += e.end_ms - e.start_ms;
    d.idle_bars.push_back(bar(e.start_ms, e.end_ms, 0, 0.32));
  }
  // Exposed communication as the step table has it (overlapped less compute-only: quantities.hpp);
  // the red bars are another quantity, the comm stream busy while the compute stream is idle.
  const auto exposed_by_run = exposed_comm_by_run(records);
  if (const auto it = exposed_by_run.find(d.facts.run); it != exposed_by_run.end())
    d.facts.exposed_comm_ms = it->second;
  return d;
}

}  // namespace

TimelineFacts timeline_facts(const std::vector<Record>& records) {
  return timeline_data(records).facts;
}

FigureFiles plot_timeline(const std::vector<Record>& records, const FigureRequest& request) {
  TimelineData d = timeline_data(records);
  const std::vector<const Record*>& ops = d.ops;
  auto& bars = d.bars;
  const double step_ms = d.facts.step_ms;
  const nlohmann::json& first = ops.front()->data;
  const std::string model = model_of(first, index_models(records));
  char exposed_text[64] = "-";
  if (d.facts.exposed_comm_ms)
    std::snprintf(exposed_text, sizeof exposed_text, "%.1f ms", *d.facts.exposed_comm_ms);
  char subtitle[320];
  std::snprintf(subtitle, sizeof subtitle,
                "%s on %s, %d node(s), %d ranks: step %.1f ms\nexposed communication %s "
                "(the step table's: overlapped less compute-only)",
                model.c_str(), fabric_of(first).c_str(), nodes_of(first),
                static_cast<int>(number_at(first, "run/ranks").value_or(1)), step_ms,
                exposed_text);
  char idle_title[160];
  std::snprintf(idle_title, sizeof idle_title,
                "comm while the compute stream is idle (%.1f ms)", d.facts.idle_comm_ms);

  // Legend order: the compute phases as they happen, then the collectives; unknown ones last.
  static const std::vector<std::pair<std::string, std::string>> kColours = {
      {"compute forward", "#1f77b4"},  {"compute recompute", "#9ecae1"},
      {"compute backward", "#2ca02c"}, {"compute optimizer", "#8c564b"},
      {"all_gather", "#ff7f0e"},       {"reduce_scatter", "#9467bd"},
      {"all_to_all", "#17becf"},       {"all_to_allv", "#17becf"},
      {"all_reduce", "#e377c2"}};
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& [category, rgb] : kColours)
    if (bars.count(category)) order.push_back({category, rgb});
  for (const auto& [category, rows] : bars)
    if (std::none_of(kColours.begin(), kColours.end(),
                     [&](auto& c) { return c.first == category; }))
      order.push_back({category, "#7f7f7f"});
  std::vector<Series> series;
  for (const auto& [category, rgb] : order) {
    const auto& rows = bars[category];
    series.push_back(
        {"using 1:2:3:4:5:6 with boxxyerror fs solid 0.85 border lc rgb 'white' "
         "fc rgb '" +
             rgb + "' title " + quoted(category),
         rows});
  }
  if (!d.idle_bars.empty())
    series.push_back(
        {"using 1:2:3:4:5:6 with boxxyerror fs solid 1.0 noborder fc rgb '#d62728' "
         "title " + quoted(idle_title),
         d.idle_bars});

  return render(request.out_dir, request.name, {1400, 680}, [&](Gnuplot& gp) {
    gp << "set title "
       << quoted(std::string("One training step, overlapped (slowest rank)\n") + subtitle)
       << " font ',15'\n"
       << "set xlabel 'time since step start (ms)'\n"
       << "set ytics ('comm, compute idle' 0, 'comm stream' 1, 'compute stream' 2)\n"
       << "set yrange [-0.6:2.6]\n"
       << "set xrange [0:" << step_ms * 1.01 << "]\n"
       << "set grid noytics\n"
       << key_below(static_cast<int>(series.size()), 3);
    plot(gp, series);
  });
}

}  // namespace collreplay::plots
