// A thin wrapper over gnuplot-iostream (Debian's 2014 API: `Gnuplot gp; gp << ...;
// gp.send1d(...)`): one figure drawn to PNG (pngcairo) and SVG with the house style. That API
// writes nothing, silently, when gnuplot is absent, hence require_gnuplot() first.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace gnuplotio {
class Gnuplot;
}
using gnuplotio::Gnuplot;

namespace collreplay::plots {

// RuntimeError with one line unless an executable `gnuplot` is on PATH.
void require_gnuplot();

struct FigureFiles {
  std::string png, svg;
};

struct FigureSize {
  int width_px = 1200;
  int height_px = 720;
};

// Calls `draw` once per format on a fresh gnuplot whose terminal and output are set and whose
// style (fonts, grid, key box) is the house one; `draw` issues the set-up and plot commands
// and sends the data. Throws RuntimeError when gnuplot wrote no file.
FigureFiles render(const std::string& out_dir, const std::string& name, FigureSize size,
                   const std::function<void(Gnuplot&)>& draw);

// One plot clause: `source` ("'-'": inline rows sent after the plot command; else an
// expression such as "NaN", for a legend-only entry) followed by `style` (using/with/title).
struct Series {
  std::string style;
  std::vector<std::vector<double>> rows;
  std::string source = "'-'";
};
// "plot s1, s2, ..." and then each inline series' rows, through gp.send1d.
void plot(Gnuplot& gp, const std::vector<Series>& series);

// "set key" below the plot in columns of at most `max_rows` entries, with a bottom margin that
// keeps it clear of the x label (gnuplot alone lets them overlap).
std::string key_below(int entries, int max_rows);

// A gnuplot string literal: "text" with backslashes and quotes escaped, and the enhanced-text
// specials (_ ^ @ & { }) escaped so names like layers.0 or eth_10g print as written.
std::string quoted(const std::string& text);

// Line colours that stay apart on white, by index (wraps around).
std::string colour(int index);

}  // namespace collreplay::plots
