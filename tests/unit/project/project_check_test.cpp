// `project --check`: the published-throughput fixture reader (columns, model paths taken from the
// fixture's folder, bands), the ratio and error arithmetic of a series, a run over a fixture whose
// row leaves its band (1) or stays in it (0), and malformed fixtures refused with one line
// (UsageError: exit 2) before anything is projected.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/project/check/check_runner.hpp"
#include "bench/project/check/check_series.hpp"
#include "bench/project/check/published_fixture.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHeader =
    "series,model,gpu,gpus_per_node,nodes,fabric,plan,sharding,micro_batch,grad_accum,seq,ac,"
    "reduce_dtype,tokens_per_s_per_gpu,band,source\n";

std::string row(const std::string& series, int nodes, double tokens, const std::string& band,
                const std::string& model = "qwen2.5-0.5b") {
  std::ostringstream r;
  r << series << "," << model << ",h100,8," << nodes << ",ib-ndr-8x400,fsdp1,full,1,1,1024,yes,"
    << "bf16," << tokens << "," << band << ",a test\n";
  return r.str();
}

class ProjectCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/collreplay-check-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& text, const std::string& name = "f.csv") {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  // The one-line message of the UsageError that reading `text` throws ("" when it reads).
  std::string error_of(const std::string& text) {
    try {
      read_published_fixture(write(text), "");
    } catch (const UsageError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      return message;
    }
    return "";
  }

  int check(const std::string& text, std::string& printed) {
    ProjectOptions o;
    o.check = {write(text)};
    std::ostringstream out;
    const int code = run_check(o, out);
    printed = out.str();
    return code;
  }

  fs::path dir_;
};

TEST_F(ProjectCheck, ReadsRowsAndTakesModelPathsFromTheFixturesFolder) {
  fs::create_directories(dir_ / "models");
  std::ofstream(dir_ / "models" / "tiny.json")
      << R"({"model_type":"llama","hidden_size":64,"intermediate_size":128,)"
      << R"("num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":4,)"
      << R"("vocab_size":100,"tie_word_embeddings":true})";
  const std::string path =
      write(std::string("# source one\n") + kHeader + row("s", 1, 8505, "2") +
            row("s", 2, 6876.5, "2", "models/tiny.json") +
            row("u", 2, 10, "unmatched: explained by exposed_comm") + row("d", 16, 3700, "absolute"));
  const std::vector<PublishedRow> rows = read_published_fixture(path, "");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].series, "s");
  EXPECT_EQ(rows[0].gpus_per_node, 8);
  EXPECT_EQ(rows[0].micro_batch, 1);
  EXPECT_EQ(rows[0].seq, 1024);
  EXPECT_TRUE(rows[0].activation_checkpointing);
  EXPECT_EQ(rows[0].band.kind, SeriesBand::Kind::points);
  EXPECT_DOUBLE_EQ(rows[0].band.points, 2);
  EXPECT_EQ(fs::path(rows[1].model), dir_ / "models" / "tiny.json");
  EXPECT_DOUBLE_EQ(rows[1].tokens_per_s_per_gpu, 6876.5);
  EXPECT_EQ(rows[2].band.kind, SeriesBand::Kind::unmatched);
  EXPECT_EQ(rows[2].band.term, "exposed_comm");
  EXPECT_EQ(rows[3].band.kind, SeriesBand::Kind::absolute);
  EXPECT_EQ(rows[3].where, path + ":6");
}

TEST_F(ProjectCheck, RefusesMalformedFixturesWithOneLineNamingThePlace) {
  std::string no_band = kHeader;
  no_band.replace(no_band.find(",band"), 5, "");
  EXPECT_NE(error_of(no_band + "s,qwen2.5-0.5b,h100,8,1,ib-ndr-8x400,fsdp1,full,1,1,1024,yes,"
                               "bf16,1,a\n")
                .find(":1: missing column 'band'"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row("s", 1, -3, "2")).find(":2: tokens_per_s_per_gpu"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row("s", 1, 5, "2", "no-such-model"))
                .find("unknown model 'no-such-model'"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row("s", 1, 5, "two")).find("band 'two'"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row("s", 1, 5, "2") + row("s", 2, 5, "5"))
                .find(":3: series 's' has band '2' above"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader).find("no rows"), std::string::npos);
  EXPECT_EQ(error_of(std::string(kHeader) + row("s", 1, 5, "2")), "");
}

SeriesPoint point(int nodes, double real, double projected) {
  SeriesPoint p;
  p.nodes = nodes;
  p.real_tokens_per_s_per_gpu = real;
  p.projected_tokens_per_s_per_gpu = projected;
  return p;
}

TEST(ProjectCheckSeries, RatiosToTheFewestNodesAndErrorInPoints) {
  SeriesBand band;
  ASSERT_TRUE(parse_series_band("2", band));
  // Given out of order: the 1-node point is the reference.
  const SeriesCheck c =
      check_series("s", band, {point(16, 5605, 6200), point(1, 5762, 6200), point(4, 5700, 6150)});
  ASSERT_EQ(c.points.size(), 3u);
  EXPECT_EQ(c.points[0].point.nodes, 1);
  EXPECT_DOUBLE_EQ(c.points[0].real_ratio, 1);
  EXPECT_NEAR(c.points[2].real_ratio, 5605.0 / 5762, 1e-12);
  EXPECT_DOUBLE_EQ(c.points[2].projected_ratio, 1);
  EXPECT_NEAR(c.points[2].error_points, (1 - 5605.0 / 5762) * 100, 1e-9);  // +2.72
  EXPECT_NEAR(c.points[1].error_points, (6150.0 / 6200 - 5700.0 / 5762) * 100, 1e-9);  // +0.27
  EXPECT_TRUE(c.points[1].within);
  EXPECT_FALSE(c.points[2].within);
  EXPECT_FALSE(c.passed);
}

TEST(ProjectCheckSeries, AnOutOfBandPointFailsTheSeries) {
  SeriesBand band;
  ASSERT_TRUE(parse_series_band("5", band));
  // Real loses 19% at 2 nodes; projected 1%: +18 points.
  const SeriesCheck c = check_series("seed", band, {point(1, 8505, 8600), point(2, 6876, 8514)});
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.why.find("2 nodes off by +18"), std::string::npos) << c.why;
  const SeriesCheck ok = check_series("seed", band, {point(1, 100, 200), point(2, 96, 191)});
  EXPECT_TRUE(ok.passed) << ok.why;
}

TEST(ProjectCheckSeries, AnUnmatchedSeriesPassesOnlyWhenProjectComputesItsTerm) {
  SeriesBand band;
  ASSERT_TRUE(parse_series_band("unmatched: explained by exposed_comm", band));
  std::vector<SeriesPoint> points = {point(1, 8510, 8600), point(2, 6874, 4000)};
  points[0].term_value = 0.0;
  points[1].term_value = 114.0;
  EXPECT_TRUE(check_series("eth", band, points).passed);
  points[1].term_value = 0.0;  // computed, but says nothing
  EXPECT_FALSE(check_series("eth", band, points).passed);
  points[1].term_value.reset();  // not a term project computes
  const SeriesCheck unknown = check_series("eth", band, points);
  EXPECT_FALSE(unknown.passed);
  EXPECT_NE(unknown.why.find("does not compute the term 'exposed_comm'"), std::string::npos);
}

TEST(ProjectCheckSeries, ABandsTermExplainsAPointBeyondItOnlyWithAPositiveValue) {
  SeriesBand band;
  ASSERT_TRUE(parse_series_band("5 else explained by inter_overhead", band));
  EXPECT_EQ(band.kind, SeriesBand::Kind::points);
  EXPECT_DOUBLE_EQ(band.points, 5);
  EXPECT_EQ(band.term, "inter_overhead");
  EXPECT_FALSE(parse_series_band("5 else explained by ", band));
  EXPECT_FALSE(parse_series_band("x else explained by inter_overhead", band));
  ASSERT_TRUE(parse_series_band("5 else explained by inter_overhead", band));
  std::vector<SeriesPoint> points = {point(1, 8505, 8600), point(2, 6876, 8514),
                                     point(4, 6665, 8500)};
  points[1].term_value = 1.4;
  points[2].term_value = 1.6;
  const SeriesCheck explained = check_series("seed", band, points);
  EXPECT_TRUE(explained.passed) << explained.why;
  EXPECT_TRUE(explained.explained);
  EXPECT_TRUE(explained.points[1].explained);
  points[2].term_value = 0.0;  // the projection is already as slow: nothing to explain with it
  const SeriesCheck zero = check_series("seed", band, points);
  EXPECT_FALSE(zero.passed);
  EXPECT_FALSE(zero.explained);
  EXPECT_NE(zero.why.find("4 nodes off by"), std::string::npos) << zero.why;
  EXPECT_NE(zero.why.find("no positive 'inter_overhead'"), std::string::npos) << zero.why;
  points[2].term_value.reset();
  EXPECT_FALSE(check_series("seed", band, points).passed);
  // No term named: beyond the band fails, whatever values the points carry.
  ASSERT_TRUE(parse_series_band("5", band));
  points[2].term_value = 1.6;
  EXPECT_FALSE(check_series("seed", band, points).passed);
}

TEST(ProjectCheckSeries, OneTermValueMustExplainEveryPointItExplains) {
  SeriesBand band;
  ASSERT_TRUE(parse_series_band("5 else explained by inter_overhead", band));
  std::vector<SeriesPoint> points = {point(1, 8505, 8600), point(2, 6876, 8514),
                                     point(4, 6665, 8500), point(8, 6474, 8480)};
  points[1].term_value = 4.6;
  points[2].term_value = 4.5;
  points[3].term_value = 4.4;
  EXPECT_TRUE(check_series("seed", band, points).passed);
  points[3].term_value = 7.0;  // 7.0 / 4.5 > 1.5: a number per point, not one explanation
  const SeriesCheck spread = check_series("seed", band, points);
  EXPECT_FALSE(spread.passed);
  EXPECT_NE(spread.why.find("from 4.50 to 7.00"), std::string::npos) << spread.why;
}

TEST(ProjectCheckSeries, ASeriesWithOnePointIsMissingARow) {
  SeriesBand band;
  ASSERT_TRUE(parse_series_band("2", band));
  const SeriesCheck c = check_series("s", band, {point(1, 100, 100)});
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.why.find("a row is missing"), std::string::npos) << c.why;
  ASSERT_TRUE(parse_series_band("absolute", band));
  EXPECT_TRUE(check_series("d", band, {point(16, 3700, 3000)}).passed);
}

TEST_F(ProjectCheck, AnInterNodeOverheadExplainsALossOnlyWhereTheProjectionIsFaster) {
  std::string printed;
  const std::string band = "2 else explained by inter_overhead";
  // A real 30% loss at 2 nodes: project solves the overhead per cross-node collective.
  EXPECT_EQ(check(std::string(kHeader) + row("s", 1, 1000, band) + row("s", 2, 700, band), printed),
            0);
  EXPECT_NE(printed.find("explained"), std::string::npos) << printed;
  EXPECT_NE(printed.find("ms longer than 2 x ib-ndr-8x400 explains; consistent with "
                         "inter_overhead = "),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("# 1 of 1 series pass (1 of them explained"), std::string::npos)
      << printed;
  // A real 30% gain: the projection is already slower; no overhead explains it.
  EXPECT_EQ(check(std::string(kHeader) + row("s", 1, 1000, band) + row("s", 2, 1300, band), printed),
            1);
  EXPECT_NE(printed.find("# FAILED s: 2 nodes off by -"), std::string::npos) << printed;
}

TEST_F(ProjectCheck, ExitsOneWhenARowLeavesItsBandAndZeroWithin) {
  std::string printed;
  // The projection keeps per-GPU throughput near flat on 8 x NDR: a real 50% loss is far out.
  EXPECT_EQ(check(std::string(kHeader) + row("s", 1, 1000, "2") + row("s", 2, 500, "2"), printed),
            1);
  EXPECT_NE(printed.find("OUT"), std::string::npos) << printed;
  EXPECT_NE(printed.find("# FAILED s: 2 nodes off by +"), std::string::npos) << printed;
  EXPECT_NE(printed.find("model:h100"), std::string::npos) << printed;
  EXPECT_EQ(check(std::string(kHeader) + row("s", 1, 1000, "60") + row("s", 2, 500, "60"), printed),
            0);
  EXPECT_NE(printed.find("# 1 of 1 series pass"), std::string::npos) << printed;
}

TEST_F(ProjectCheck, TheComputeColumnOverridesTheGpusDefaultMfu) {
  ProjectOptions o;
  o.check = {write(std::string(kHeader) + row("s", 1, 1000, "2"), "default.csv")};
  const std::vector<CheckedSeries> plain = check_fixtures(o);
  std::string header = kHeader;
  header.insert(header.size() - 1, ",compute");
  std::string quartered = row("s", 1, 1000, "2");
  quartered.insert(quartered.size() - 1, ",model:h100@0.25");
  o.check = {write(header + quartered, "quarter.csv")};
  const std::vector<CheckedSeries> quarter = check_fixtures(o);
  ASSERT_EQ(plain.size(), 1u);
  ASSERT_EQ(quarter.size(), 1u);
  EXPECT_EQ(plain[0].compute, "model:h100");
  EXPECT_EQ(quarter[0].compute, "model:h100@0.25");
  // Half the default MFU (0.5) doubles the compute; the exposed comm and the optimizer step of
  // this small model stay, so the step is slower by less than 2x.
  const double ratio = quarter[0].check.points[0].point.projected_tokens_per_s_per_gpu /
                       plain[0].check.points[0].point.projected_tokens_per_s_per_gpu;
  EXPECT_GT(ratio, 0.5);
  EXPECT_LT(ratio, 0.9);
}

TEST_F(ProjectCheck, AnUnknownFabricIsAUsageErrorNamingTheRow) {
  std::string text = std::string(kHeader) + row("s", 1, 1000, "2");
  text.replace(text.find("ib-ndr-8x400"), 12, "no-such-fabric");
  std::string printed;
  try {
    check(text, printed);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("f.csv:2: "), std::string::npos) << e.what();
  }
  EXPECT_EQ(printed, "");
}

}  // namespace
}  // namespace collreplay::project
