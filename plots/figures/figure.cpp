#include "plots/figure.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <gnuplot-iostream.h>

#include "common/errors.hpp"

namespace collreplay::plots {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStyle =
    "set encoding utf8\n"
    "set grid xtics ytics lc rgb '#dddddd' lw 1 dt 1\n"
    "set border lw 1.2\n"
    "set key box opaque samplen 3 spacing 1.2\n"
    "set tics nomirror\n"
    "set border 3\n";

// A file name for `set output`: single-quoted, where only a quote needs doubling.
std::string path_literal(const std::string& path) {
  std::string out = "'";
  for (char c : path) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace

void require_gnuplot() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "gnuplot";
    if (access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate)) return;
  }
  throw RuntimeError(
      "gnuplot is not on PATH: install it (Debian: apt-get install gnuplot-nox, "
      "or `make deps`); without it no figure can be drawn");
}

FigureFiles render(const std::string& out_dir, const std::string& name, FigureSize size,
                   const std::function<void(Gnuplot&)>& draw) {
  fs::create_directories(out_dir);
  FigureFiles files{(fs::path(out_dir) / (name + ".png")).string(),
                    (fs::path(out_dir) / (name + ".svg")).string()};
  const std::string terminals[] = {
      "set terminal pngcairo enhanced font 'DejaVu Sans,13' size " + std::to_string(size.width_px) +
          "," + std::to_string(size.height_px),
      "set terminal svg enhanced font 'DejaVu Sans,13' size " + std::to_string(size.width_px) +
          "," + std::to_string(size.height_px) + " background rgb 'white'"};
  const std::string outputs[] = {files.png, files.svg};
  for (int i = 0; i < 2; ++i) {
    // Written beside the target and renamed: a failed run never leaves half a figure.
    const std::string partial = outputs[i] + ".partial";
    fs::remove(partial);
    {
      Gnuplot gp("gnuplot");
      gp << terminals[i] << "\n"
         << "set output " << path_literal(partial) << "\n"
         << kStyle;
      draw(gp);
      gp << "\nset output\n";
    }  // the destructor waits for gnuplot to finish writing
    if (!fs::exists(partial) || fs::file_size(partial) == 0)
      throw RuntimeError("gnuplot wrote nothing to " + outputs[i] + " (see its messages above)");
    fs::rename(partial, outputs[i]);
  }
  return files;
}

void plot(Gnuplot& gp, const std::vector<Series>& series) {
  gp << "plot ";
  for (std::size_t i = 0; i < series.size(); ++i)
    gp << (i ? ", \\\n  " : "") << series[i].source << " " << series[i].style;
  gp << "\n";
  for (const Series& s : series)
    if (s.source == "'-'") gp.send1d(s.rows);
}

std::string key_below(int entries, int max_rows) {
  const int rows = std::max(1, std::min(entries, max_rows));
  return "set key outside below vertical maxrows " + std::to_string(rows) + "\nset bmargin " +
         std::to_string(4 + rows + (rows + 1) / 2) + "\n";
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";  // a line break in the printed text
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    if (c == '_' || c == '^' || c == '@' || c == '&' || c == '{' || c == '}' || c == '~')
      out += "\\\\";
    out += c;
  }
  return out + "\"";
}

std::string colour(int index) {
  static const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                         "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};
  return std::string("rgb '") + kColours[index % 8] + "'";
}

}  // namespace collreplay::plots
