// The figure programs and `report` as a user runs them: outputs where asked, exit 2 with one
// line for an empty or irrelevant folder, exit 1 with one line when gnuplot is missing, and a
// report.md that embeds the figures and carries the commands that reproduce the runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "tests/plots/png_probe.hpp"
#include "tests/support/results_fixtures.hpp"

namespace collreplay::plots {
namespace {

namespace fs = std::filesystem;
using test_support::fixtures;
using test_support::results_fixtures;

class Programs : public cli_test::ScratchDirTest {
 protected:
  std::string program(const std::string& name) { return (cli_test::bin_dir() / name).string(); }
};

int lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

TEST_F(Programs, WriteThePngAndSvgWhereAsked) {
  const auto o = run(program("plot_busbw") + " " + results_fixtures() + " --out " + dir_.string() +
                     " --name bw");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(fs::exists(dir_ / "bw.png"));
  EXPECT_TRUE(fs::exists(dir_ / "bw.svg"));
  EXPECT_NE(o.out.find("bw.png"), std::string::npos);
}

TEST_F(Programs, AnEmptyFolderIsExitTwoWithOneLine) {
  fs::create_directories(dir_ / "empty");
  for (const char* name : {"plot_headroom", "plot_counters", "report"}) {
    const auto o = run(program(name) + " " + (dir_ / "empty").string());
    EXPECT_EQ(o.exit_code, 2) << name;
    EXPECT_EQ(lines(o.err), 1) << o.err;
    EXPECT_NE(o.err.find("no result records"), std::string::npos) << o.err;
  }
}

TEST_F(Programs, AFolderWithoutTheNeededRecordsIsExitTwoWithOneLine) {
  const auto o =
      run(program("plot_timeline") + " " + results_fixtures("perf") + " --out " + dir_.string());
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(lines(o.err), 1) << o.err;
  EXPECT_NE(o.err.find("start_ms"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "plot_timeline.png"));
}

TEST_F(Programs, MalformedLinesAreNamedAndTheRestIsDrawn) {
  fs::copy(results_fixtures("perf"), dir_ / "in");
  std::ofstream(dir_ / "in" / "broken.jsonl") << "{\"op\": \n";
  const auto o = run(program("plot_busbw") + " " + (dir_ / "in").string());
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find((dir_ / "in" / "broken.jsonl").string() + ":1: "), std::string::npos)
      << o.err;
  EXPECT_TRUE(fs::exists(dir_ / "in" / "plot_busbw.png")) << "default --out: the results folder";
}

TEST_F(Programs, GnuplotMissingIsOneClearLineBeforeAnythingElse) {
  fs::create_directories(dir_ / "empty");
  const auto o = run("env PATH=" + (dir_ / "empty").string() + " " + program("plot_headroom") +
                     " " + results_fixtures() + " --out " + dir_.string());
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(lines(o.err), 1) << o.err;
  EXPECT_NE(o.err.find("gnuplot is not on PATH"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "plot_headroom.png"));
}

TEST_F(Programs, ReportWithoutGnuplotWritesItsTextAndSaysWhyEachFigureIsMissing) {
  // As on a GPU image without package access: the answer and the tables, no figures, exit 0.
  fs::create_directories(dir_ / "empty");
  const auto o = run("env PATH=" + (dir_ / "empty").string() + " " + program("report") + " " +
                     results_fixtures() + " --out " + dir_.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string md = cli_test::slurp(dir_ / "report.md");
  EXPECT_NE(md.find("## The answer: does the model need the fast fabric?"), std::string::npos);
  EXPECT_NE(md.find("Step summary"), std::string::npos);
  EXPECT_NE(md.find("- Overlap headroom vs node count: not drawn (gnuplot is not on PATH"),
            std::string::npos)
      << md;
  EXPECT_FALSE(fs::exists(dir_ / "plot_headroom.png"));
}

TEST_F(Programs, ReportEmbedsTheFiguresAndTheCommands) {
  const auto o = run(program("report") + " " + results_fixtures() + " --out " + dir_.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string md = cli_test::slurp(dir_ / "report.md");
  for (const char* png : {"plot_headroom.png", "plot_busbw.png", "plot_timeline.png",
                          "plot_transports.png", "plot_ranks.png", "plot_counters.png"}) {
    EXPECT_NE(md.find(std::string("](") + png + ")"), std::string::npos) << png;
    EXPECT_GT(testing::probe_png((dir_ / png).string()).distinct_colours, 8u) << png;
  }
  EXPECT_NE(md.find("## Reproduce"), std::string::npos);
  EXPECT_NE(md.find("\nbuild/bin/all_gather_perf -b 1M -e 4G"), std::string::npos);
  EXPECT_NE(md.find("build/bin/replay --model qwen2.5-7b --micro-batch 2"), std::string::npos);
  EXPECT_NE(md.find("| transport verified | "), std::string::npos);
  EXPECT_NE(md.find("eth-10g"), std::string::npos);
  EXPECT_NE(md.find("Step summary"), std::string::npos);
  // It opens with the answer: where each model tips on each fabric, before any table.
  const std::size_t answer = md.find("## The answer: does the model need the fast fabric?");
  ASSERT_NE(answer, std::string::npos);
  EXPECT_LT(answer, md.find("## Environment"));
  EXPECT_NE(md.find("on eth-10g: measured, tips between 2 and 4 nodes", answer), std::string::npos)
      << md.substr(answer, 2000);
  EXPECT_FALSE(fs::exists(dir_ / "report.md.partial"));
}

TEST_F(Programs, ReportSetsTheRealTrainingReferenceBesideTheReplay) {
  // Real records of one H100 call: PyTorch's FSDP2 step (source "reference") and replay's.
  const auto o = run(program("report") + " " + fixtures("fidelity") + " --out " + dir_.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string md = cli_test::slurp(dir_ / "report.md");
  // source, model, ..., fwd+bwd, optimizer: 99.7 and 27.5 ms measured by the reference, 98.9
  // and 28.7 by the replay.
  const std::size_t reference = md.find("| reference | qwen2.5-7b |");
  const std::size_t replay = md.find("| replay | qwen2.5-7b |");
  ASSERT_NE(reference, std::string::npos) << md;
  ASSERT_NE(replay, std::string::npos) << md;
  const std::string reference_row = md.substr(reference, md.find('\n', reference) - reference);
  const std::string replay_row = md.substr(replay, md.find('\n', replay) - replay);
  EXPECT_NE(reference_row.find("| 99.7 | 27.5 |"), std::string::npos) << reference_row;
  EXPECT_NE(reference_row.find("| 127.3 |"), std::string::npos) << reference_row;
  EXPECT_NE(replay_row.find("| 98.9 | 28.7 |"), std::string::npos) << replay_row;
  EXPECT_NE(replay_row.find("| 128.1 |"), std::string::npos) << replay_row;
}

TEST_F(Programs, ReportPairsMultiRankReferenceAndReplayByPlanWorldAndEp) {
  // Hand-made records: five multi-rank steps, the replays' file read first and in another order.
  const auto o =
      run(program("report") + " " + fixtures("fidelity_multi") + " --out " + dir_.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string md = cli_test::slurp(dir_ / "report.md");
  std::vector<std::string> rows;
  std::istringstream lines(md.substr(md.find("## Step summary")));
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("| reference |") || line.starts_with("| replay |")) rows.push_back(line);
  ASSERT_EQ(rows.size(), 10u) << md;
  // Each reference row is followed by the replay of the same step: the plan cell, then the
  // overlapped step of each (the only 405.0 is FSDP2 world 2's reference, 410.2 its replay, ...).
  struct Pair {
    std::string plan, reference_ms, replay_ms;
  };
  const std::vector<Pair> pairs = {{"| qwen2.5-0.5b | fsdp2 |", "405.0", "410.2"},
                                   {"| qwen2.5-0.5b | ddp |", "333.0", "340.2"},
                                   {"| qwen2.5-0.5b | fsdp2 hsdp 2x2 |", "950.0", "940.2"},
                                   {"| qwen2.5-0.5b | fsdp2 |", "1010.0", "990.2"},
                                   {"| mixtral-8x7b | fsdp2 ep 2 |", "820.0", "830.2"}};
  for (const Pair& p : pairs) {
    const auto at = std::find_if(rows.begin(), rows.end(), [&](const std::string& row) {
      return row.find("| " + p.reference_ms + " |") != std::string::npos;
    });
    ASSERT_NE(at, rows.end()) << p.reference_ms << "\n" << md;
    ASSERT_NE(at + 1, rows.end()) << p.reference_ms;
    EXPECT_TRUE(at->starts_with("| reference |")) << *at;
    EXPECT_NE(at->find(p.plan), std::string::npos) << *at;
    EXPECT_TRUE((at + 1)->starts_with("| replay |")) << *(at + 1);
    EXPECT_NE((at + 1)->find(p.plan), std::string::npos) << *(at + 1);
    EXPECT_NE((at + 1)->find("| " + p.replay_ms + " |"), std::string::npos) << *(at + 1);
  }
  const auto first = std::find_if(rows.begin(), rows.end(), [](const std::string& row) {
    return row.find("| 405.0 |") != std::string::npos;
  });
  ASSERT_NE(first, rows.end());
  // Above one rank the reference's fwd+bwd is its compute-only one (181.5 ms, not the 350 of
  // forward + backward with the collectives in them).
  EXPECT_NE(first->find("| 181.5 | 9.5 |"), std::string::npos) << *first;
  // The AdamW each side asked for and what it ran.
  EXPECT_NE(first->find("| default (foreach) |"), std::string::npos) << *first;
  EXPECT_NE((first + 1)->find("| auto (adamw-foreach) |"), std::string::npos) << *(first + 1);
}

}  // namespace
}  // namespace collreplay::plots
