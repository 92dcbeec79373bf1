// plot_headroom: draws figure 'headroom' (plots/figures.hpp) as PNG and SVG from collreplay
// results.
#include "plots/plot_main.hpp"

int main(int argc, char** argv) {
  return collreplay::plots::figure_main(argc, argv, "plot_headroom",
                                        collreplay::plots::plot_headroom);
}
