// Every figure renders a real PNG (and an SVG) from the fixture results: the PNG signature, the
// size in pixels asked for, and more than a handful of colours (not a blank canvas). Records a
// figure cannot use are a UsageError, never an empty picture.
#include <gtest/gtest.h>

#include <filesystem>

#include <gnuplot-iostream.h>

#include "common/errors.hpp"
#include "plots/figures.hpp"
#include "tests/plots/png_probe.hpp"
#include "tests/support/results_fixtures.hpp"

namespace collreplay::plots {
namespace {

namespace fs = std::filesystem;
using test_support::results_fixtures;
using testing::probe_png;

class Figures : public cli_test::ScratchDirTest {
 protected:
  std::vector<Record> read(const std::string& sub = "") {
    std::ostringstream warnings;
    return read_results({results_fixtures(sub)}, warnings);
  }
};

TEST_F(Figures, EachRendersANonBlankPngAndAnSvg) {
  const std::vector<Record> records = read();
  for (const FigureEntry& figure : all_figures()) {
    SCOPED_TRACE(figure.name);
    const FigureFiles files = figure.draw(records, {dir_.string(), figure.name});
    EXPECT_EQ(files.png, (dir_ / (std::string(figure.name) + ".png")).string());
    const auto png = probe_png(files.png);
    EXPECT_TRUE(png.signature_ok);
    EXPECT_EQ(png.problem, "");
    EXPECT_GE(png.width, 1000u);
    EXPECT_GE(png.height, 500u);
    EXPECT_GE(png.distinct_colours, 8u) << "a blank or near-blank image";
    ASSERT_TRUE(fs::exists(files.svg));
    EXPECT_NE(cli_test::slurp(files.svg).find("<svg"), std::string::npos);
    EXPECT_FALSE(fs::exists(files.png + ".partial"));
  }
}

TEST_F(Figures, TheBlankCheckSeesABlankCanvas) {
  // The same probe on a canvas with nothing drawn: one colour, so the check above can fail.
  const FigureFiles files = render(dir_.string(), "blank", {640, 480}, [](Gnuplot& gp) {
    gp << "unset border\nunset tics\nunset key\nunset grid\nset xrange [0:1]\nset yrange [0:1]\n"
       << "plot -1 notitle\n";  // entirely outside the range: nothing drawn
  });
  const auto png = probe_png(files.png);
  EXPECT_EQ(png.problem, "");
  EXPECT_EQ(png.width, 640u);
  EXPECT_EQ(png.height, 480u);
  EXPECT_LE(png.distinct_colours, 2u);
}

TEST_F(Figures, HeadroomMarksTheTippingPointAndTheProjection) {
  const std::vector<Record> records = read();
  const FigureFiles files = plot_headroom(records, {dir_.string(), "headroom"});
  const std::string svg = cli_test::slurp(files.svg);
  // eth-10g measured: +0.85 ms at 2 nodes, -3.4 ms at 4 nodes -> tips between 2 and 4.
  EXPECT_NE(svg.find("eth-10g: tips between 2 and 4 nodes"), std::string::npos);
  EXPECT_NE(svg.find("ib-ndr-8x400, projected"), std::string::npos);
  EXPECT_NE(svg.find("ib-ndr-8x400, measured"), std::string::npos);
}

// Several models (the demo's measured one and the mission's projected ones): a panel each, titled
// by the model and its workload, so that a 72B layer's seconds never flatten a 0.5B's milliseconds.
TEST_F(Figures, HeadroomDrawsAPanelPerModelWithItsOwnAnswer) {
  std::vector<Record> records = read("emulated");
  for (const auto& [fabric, h_ms] : {std::pair{"ib-ndr-8x400", 5.0}, {"eth-10g", -900.0}})
    for (int nodes : {1, 2, 4})
      records.push_back({{{"record", "projection"},
                          {"model", "qwen2.5-72b"},
                          {"fabric", fabric},
                          {"nodes", nodes},
                          {"micro_batch", 1},
                          {"seq", 2048},
                          {"gpus_per_node", 8},
                          {"headroom_ms", nodes == 1 ? 12.0 : h_ms}},
                         "p.jsonl",
                         0});
  const std::string svg = cli_test::slurp(plot_headroom(records, {dir_.string(), "panels"}).svg);
  EXPECT_NE(svg.find("qwen2.5-72b: micro-batch 1 × 2048, 8 GPUs/node"), std::string::npos);
  EXPECT_NE(svg.find("qwen2.5-0.5b"), std::string::npos);
  EXPECT_NE(svg.find("eth-10g: tips between 1 and 2 nodes"), std::string::npos);
  EXPECT_NE(svg.find("ib-ndr-8x400: stays positive up to 4 nodes"), std::string::npos);
  // -900 ms is far below 3 x the +12 ms surplus: the axis stops short, the title says how it
  // marks the points below it, and each is on the floor with its value (2 and 4 nodes).
  EXPECT_NE(svg.find("▼ on the floor: below the axis, value beside it"), std::string::npos);
  std::size_t labels = 0;
  for (std::size_t at = svg.find("-900 ms"); at != std::string::npos;
       at = svg.find("-900 ms", at + 1))
    ++labels;
  EXPECT_EQ(labels, 2u) << "one label per point below the axis";
}

// Two runs on the same hosts (a sweep's node counts): a panel each, titled by its run, each on its
// own clock, never one line that jumps back to t = 0 between runs.
TEST_F(Figures, CountersOfSeveralRunsArePanelsOfTheirOwn) {
  std::vector<Record> records;
  for (int nodes : {2, 4})
    for (double t : {0.0, 1.0, 2.0})
      records.push_back({{{"record", "counters"},
                          {"source", "net"},
                          {"host", "n0"},
                          {"device", "eth0"},
                          {"t_s", t},
                          {"tx_bytes_per_s", 1e9 * nodes},
                          {"rx_bytes_per_s", 1e9 * nodes},
                          {"run", {{"fabric", "eth-10g"}, {"nodes", nodes}}}},
                         "x.jsonl",
                         0});
  const std::string svg = cli_test::slurp(plot_counters(records, {dir_.string(), "counters"}).svg);
  EXPECT_NE(svg.find("eth-10g, 2 nodes: NIC (Ethernet)"), std::string::npos);
  EXPECT_NE(svg.find("eth-10g, 4 nodes: NIC (Ethernet)"), std::string::npos);
  EXPECT_NE(svg.find("n0:eth0 tx"), std::string::npos);
  // One run alone: its panel needs no run name.
  records.resize(3);
  const std::string one = cli_test::slurp(plot_counters(records, {dir_.string(), "one"}).svg);
  EXPECT_NE(one.find("n0:eth0 tx"), std::string::npos);
  EXPECT_EQ(one.find("2 nodes"), std::string::npos);
}

TEST_F(Figures, RecordsAFigureCannotUseAreAUsageError) {
  const std::vector<Record> counters_only = read("counters");
  for (FigureFn draw : {plot_headroom, plot_busbw, plot_timeline, plot_ranks, plot_transports})
    EXPECT_THROW(draw(counters_only, {dir_.string(), "x"}), UsageError);
  const std::vector<Record> perf_only = read("perf");
  EXPECT_THROW(plot_counters(perf_only, {dir_.string(), "x"}), UsageError);
  EXPECT_TRUE(fs::is_empty(dir_)) << "nothing is written for a figure that cannot be drawn";
}

}  // namespace
}  // namespace collreplay::plots
