// The nccl-tests table printed by the *_perf executables, against a golden file: three
// repetitions per size (out-of-place runs arrive before in-place ones), halves paired by size
// and arrival, a wrong count that the footer must report.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/perf/perf_table_reporter.hpp"

namespace collreplay {
namespace {

std::string fixture_path(const std::string& name) {
  const std::string here = __FILE__;
  return here.substr(0, here.rfind('/')) + "/../../fixtures/" + name;
}

benchmark::BenchmarkReporter::Run make_run(double bytes, bool in_place, double time_us,
                                           double wrong) {
  benchmark::BenchmarkReporter::Run run;
  run.iterations = 1;
  run.time_unit = benchmark::kMicrosecond;
  run.real_accumulated_time = time_us * 1e-6;
  run.counters["bytes"] = bytes;
  run.counters["count"] = bytes / 4 / 4;  // float on 4 ranks
  run.counters["in_place"] = in_place ? 1 : 0;
  run.counters["bus_factor"] = 0.75;
  run.counters["wrong"] = wrong;
  return run;
}

// What Google Benchmark hands the reporter for one case run 3 times: the 3 runs, then the
// aggregates (which the table skips).
std::vector<benchmark::BenchmarkReporter::Run> repetitions(double bytes, bool in_place,
                                                           std::vector<double> times_us,
                                                           double wrong_in_second = 0) {
  std::vector<benchmark::BenchmarkReporter::Run> runs;
  for (std::size_t i = 0; i < times_us.size(); ++i)
    runs.push_back(make_run(bytes, in_place, times_us[i], i == 1 ? wrong_in_second : 0));
  benchmark::BenchmarkReporter::Run mean = make_run(bytes, in_place, 1, 0);
  mean.run_type = benchmark::BenchmarkReporter::Run::RT_Aggregate;
  mean.aggregate_name = "mean";
  runs.push_back(mean);
  return runs;
}

std::string print_table() {
  std::FILE* out = std::tmpfile();
  PerfTableReporter table(out, "float", "none", /*has_in_place=*/true);
  table.print_column_heads();
  // Times tell the repetitions apart: 10x = size 1 MiB, 100x = 4 MiB; +1 in-place; the last
  // digit is the repetition.
  table.ReportRuns(repetitions(1 << 20, false, {100, 101, 102}));
  table.ReportRuns(repetitions(1 << 20, true, {110, 111, 112}, /*wrong_in_second=*/2));
  table.ReportRuns(repetitions(4 << 20, false, {1000, 1001, 1002}));
  table.ReportRuns(repetitions(4 << 20, true, {1100, 1101, 1102}));
  table.Finalize();
  table.print_footer();
  std::rewind(out);
  std::string text;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, out)) text.append(buffer, n);
  std::fclose(out);
  return text;
}

TEST(PerfTable, MatchesGoldenWithRepetitions) {
  std::ifstream golden_file(fixture_path("perf_table_repetitions.golden"));
  ASSERT_TRUE(golden_file) << fixture_path("perf_table_repetitions.golden");
  std::stringstream golden;
  golden << golden_file.rdbuf();
  EXPECT_EQ(print_table(), golden.str());
}

TEST(PerfTable, PairsHalvesOfTheSameSizeAndRepetition) {
  std::istringstream lines(print_table());
  int data_lines = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("#")) continue;
    std::istringstream fields(line);
    double bytes, count, root, oop_us, algbw, busbw, wrong, ip_us;
    std::string type, redop;
    ASSERT_TRUE(fields >> bytes >> count >> type >> redop >> root >> oop_us >> algbw >> busbw >>
                wrong >> ip_us)
        << line;
    // In-place took 10% longer than out-of-place in the same repetition of the same size.
    EXPECT_DOUBLE_EQ(ip_us - oop_us, bytes == (1 << 20) ? 10 : 100) << line;
    ++data_lines;
  }
  EXPECT_EQ(data_lines, 6);
}

TEST(PerfTable, FooterCountsWrongValues) {
  const std::string text = print_table();
  EXPECT_NE(text.find("# Out of bounds values : 2 FAILED"), std::string::npos) << text;
}

// A 45 ms time keeps nccl-tests' 7-character column ("44933.6"), and -C 1 prints the host's
// issue time under "cputime" while the bandwidths stay those of the op's time.
TEST(PerfTable, WideTimesKeepTheColumnAndCputimeShowsTheIssueTime) {
  for (bool cputime : {false, true}) {
    std::FILE* out = std::tmpfile();
    PerfTableReporter table(out, "float", "none", /*has_in_place=*/false, -1, cputime);
    table.print_column_heads();
    auto run = make_run(128 << 20, false, 44933.56, 0);
    run.counters["cpu_us"] = 3.25;
    table.ReportRuns({run});
    std::rewind(out);
    std::string text;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, out)) text.append(buffer, n);
    std::fclose(out);
    const std::string line = text.substr(text.rfind("\n", text.size() - 2) + 1);
    EXPECT_NE(line.find(cputime ? "     3.25    2.99    2.24" : "  44933.6    2.99    2.24"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("cputime") != std::string::npos, cputime) << text;
  }
}

}  // namespace
}  // namespace collreplay
