// Built instead of this folder's other sources when gnuplot-iostream's header is absent (as on a
// GPU image without package access): programs still link, `report` still writes its text and
// names why each figure is missing, and a figure program exits with that one line.
#include "common/errors.hpp"
#include "plots/figure.hpp"
#include "plots/figures.hpp"

namespace collreplay::plots {
namespace {

[[noreturn]] void no_figures() {
  throw RuntimeError(
      "this build has no figures: gnuplot-iostream was missing when it was built (Debian: "
      "apt-get install libgnuplot-iostream-dev gnuplot-nox, or `make deps`, then `make`)");
}

}  // namespace

void require_gnuplot() { no_figures(); }

FigureFiles plot_headroom(const std::vector<Record>&, const FigureRequest&) { no_figures(); }
FigureFiles plot_busbw(const std::vector<Record>&, const FigureRequest&) { no_figures(); }
FigureFiles plot_timeline(const std::vector<Record>&, const FigureRequest&) { no_figures(); }
FigureFiles plot_counters(const std::vector<Record>&, const FigureRequest&) { no_figures(); }
FigureFiles plot_ranks(const std::vector<Record>&, const FigureRequest&) { no_figures(); }
FigureFiles plot_transports(const std::vector<Record>&, const FigureRequest&) { no_figures(); }

}  // namespace collreplay::plots
