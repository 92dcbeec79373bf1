// plot_busbw: draws figure 'busbw' (plots/figures.hpp) as PNG and SVG from collreplay results.
#include "plots/plot_main.hpp"

int main(int argc, char** argv) {
  return collreplay::plots::figure_main(argc, argv, "plot_busbw", collreplay::plots::plot_busbw);
}
