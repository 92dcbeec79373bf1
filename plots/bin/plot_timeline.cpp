// plot_timeline: draws figure 'timeline' (plots/figures.hpp) as PNG and SVG from collreplay
// results.
#include "plots/plot_main.hpp"

int main(int argc, char** argv) {
  return collreplay::plots::figure_main(argc, argv, "plot_timeline",
                                        collreplay::plots::plot_timeline);
}
