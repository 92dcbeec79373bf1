// One function per figure, shared by its program (plots/bin/plot_X.cpp) and by `report`. Each
// reads only result records and throws UsageError (one line) when they hold nothing it can draw.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plots/figure.hpp"
#include "plots/plot_records.hpp"

namespace collreplay::plots {

struct FigureRequest {
  std::string out_dir;
  std::string name;  // file stem of the PNG and SVG
};

using FigureFn = FigureFiles (*)(const std::vector<Record>&, const FigureRequest&);

// Overlap headroom (median decoder layer) vs node count per model x fabric, with projections.
FigureFiles plot_headroom(const std::vector<Record>& records, const FigureRequest& request);
// Bus bandwidth vs message size per transport x op, the models' replayed sizes marked.
FigureFiles plot_busbw(const std::vector<Record>& records, const FigureRequest& request);
// One replayed step: compute and comm streams as bars, exposed communication highlighted.
FigureFiles plot_timeline(const std::vector<Record>& records, const FigureRequest& request);
// Counter time series: NIC / InfiniBand traffic per device and GPU utilisation.
FigureFiles plot_counters(const std::vector<Record>& records, const FigureRequest& request);
// Per-rank overlapped step time (the straggler view).
FigureFiles plot_ranks(const std::vector<Record>& records, const FigureRequest& request);
// One model's per-layer communication time per transport, side by side.
FigureFiles plot_transports(const std::vector<Record>& records, const FigureRequest& request);

// What the transports figure draws: for the model replayed over the most fabrics, per fabric and
// node count ("eth-10g, 2 nodes") and decoder layer, the comm its compute must hide (median of
// runs). UsageError when no unit record has it.
struct TransportBars {
  std::string model;
  std::map<std::string, std::map<int, double>> comm_ms;
};
TransportBars transport_bars(const std::vector<Record>& records);

// What the timeline's subtitle says of the run it draws: its exposed communication as the step
// table defines it (nullopt without a step record), and the comm stream's time while the compute
// stream is idle (the red bars).
struct TimelineFacts {
  std::string run;  // run_key of the run drawn
  std::optional<double> exposed_comm_ms;
  double idle_comm_ms = 0, step_ms = 0;
};
TimelineFacts timeline_facts(const std::vector<Record>& records);

struct FigureEntry {
  const char* name;   // program and default file stem
  const char* title;  // what the figure shows, for the report
  FigureFn draw;
};
// Every figure, in the order the report shows them.
const std::vector<FigureEntry>& all_figures();

}  // namespace collreplay::plots
