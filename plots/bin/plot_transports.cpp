// plot_transports: draws figure 'transports' (plots/figures.hpp) as PNG and SVG from collreplay
// results.
#include "plots/plot_main.hpp"

int main(int argc, char** argv) {
  return collreplay::plots::figure_main(argc, argv, "plot_transports",
                                        collreplay::plots::plot_transports);
}
