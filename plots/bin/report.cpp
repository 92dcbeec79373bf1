// report: turns a results folder into report.md (environment, tables, figures, commands).
#include "plots/plot_main.hpp"

int main(int argc, char** argv) { return collreplay::plots::report_main(argc, argv); }
