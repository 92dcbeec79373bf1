// build/bin/compare as a user runs it: the exit code is the gate (0 nothing slower, 1 a time
// slower beyond --threshold with p < 0.05, 2 bad input with one line and no table), and the
// markdown table names each measurement with its change and verdict.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

using nlohmann::json;

// Ten per-iteration samples around `center_us`, spread +-2% as a quiet link gives them.
std::vector<double> samples_around(double center_us) {
  std::vector<double> samples;
  for (int i = 0; i < 10; ++i) samples.push_back(center_us * (0.98 + 0.004 * i));
  return samples;
}

json run_meta() {
  return {{"nodes", 1}, {"ranks", 2}, {"transport_verified", "shm"}, {"fabric", "real"}};
}

// A perf record as the *_perf programs write it (the fields compare and pairing read).
json perf_record(double bytes, std::vector<double> samples_us) {
  std::vector<double> sorted = samples_us;
  std::sort(sorted.begin(), sorted.end());
  return {{"op", "all_gather"},        {"bytes", bytes},
          {"placement", "out_of_place"}, {"dtype", "fp32"},
          {"ranks", 2},                {"time_us", sorted[sorted.size() / 2]},
          {"time_p50_us", sorted[sorted.size() / 2]},
          {"time_samples_us", samples_us}, {"run", run_meta()}};
}

// A replay step record: each pass's median step time and its timed steps.
json step_record(double overlapped_ms) {
  json passes;
  for (const auto& [pass, ms] : {std::pair{"compute_only", 40.0}, std::pair{"comm_only", 30.0},
                                 std::pair{"overlapped", overlapped_ms}})
    passes[pass] = {{"step_ms", ms}, {"step_samples_ms", samples_around(ms)}};
  return {{"record", "step"}, {"model", "qwen2.5-0.5b"}, {"passes", passes}, {"run", run_meta()}};
}

class CompareCli : public ScratchDirTest {
 protected:
  fs::path write(const std::string& name, const std::vector<json>& records) {
    const fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream out(path);
    for (const json& r : records) out << r.dump() << "\n";
    return path;
  }
  Outcome compare(const fs::path& base, const fs::path& candidate, const std::string& flags = "") {
    return run((bin_dir() / "compare").string() + " " + base.string() + " " +
               candidate.string() + (flags.empty() ? "" : " " + flags));
  }
  // The table row of the measurement whose description holds `what`.
  static std::string row(const std::string& table, const std::string& what) {
    std::istringstream lines(table);
    for (std::string line; std::getline(lines, line);)
      if (line.starts_with("| perf") || line.starts_with("| step"))
        if (line.find(what) != std::string::npos) return line;
    return "";
  }
};

TEST_F(CompareCli, SameTimesExitZeroWithAMarkdownTable) {
  const std::vector<json> sweep = {perf_record(1024, samples_around(10)),
                                   perf_record(1 << 20, samples_around(500))};
  const Outcome o = compare(write("base.jsonl", sweep), write("new.jsonl", sweep));
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_EQ(o.err, "");
  EXPECT_TRUE(o.out.starts_with("| measurement | metric | BASE | NEW | change | p | samples |"))
      << o.out;
  EXPECT_NE(row(o.out, " 1024 B").find("| +0.0% | 1 | 10/10 | same |"), std::string::npos)
      << o.out;
  EXPECT_NE(row(o.out, " 1048576 B"), "") << o.out;
  EXPECT_NE(o.out.find("0 of 2 slower by more than 5%"), std::string::npos) << o.out;
}

TEST_F(CompareCli, OneSizeSlowerBeyondTheThresholdExitsOneAndIsNamed) {
  const fs::path base = write("base.jsonl", {perf_record(1024, samples_around(10)),
                                             perf_record(1 << 20, samples_around(500))});
  const fs::path slower = write("new.jsonl", {perf_record(1024, samples_around(10.1)),
                                              perf_record(1 << 20, samples_around(600))});
  const Outcome o = compare(base, slower);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(row(o.out, " 1048576 B").find("| +20.0% |"), std::string::npos) << o.out;
  EXPECT_TRUE(row(o.out, " 1048576 B").ends_with("| slower |")) << o.out;
  EXPECT_TRUE(row(o.out, " 1024 B").ends_with("| same |")) << "+1% is within 5%: " << o.out;
  EXPECT_NE(o.out.find("1 of 2 slower by more than 5%"), std::string::npos) << o.out;
  // The same change under a wider gate passes; the other way round it is faster, never a failure.
  EXPECT_EQ(compare(base, slower, "--threshold 25").exit_code, 0);
  const Outcome faster = compare(slower, base);
  EXPECT_EQ(faster.exit_code, 0) << faster.out;
  EXPECT_TRUE(row(faster.out, " 1048576 B").ends_with("| faster |")) << faster.out;
}

TEST_F(CompareCli, AChangeTheSamplesCannotTellFromNoiseIsNotAFailure) {
  // The median moves 100 -> 120 (+20%), but only one sample of ten moved: no rank order tells
  // the two apart.
  const std::vector<double> wide = {10, 20, 30, 40, 50, 100, 200, 300, 400, 500};
  std::vector<double> shifted = wide;
  shifted[5] = 120;
  const Outcome o = compare(write("base.jsonl", {perf_record(1024, wide)}),
                            write("new.jsonl", {perf_record(1024, shifted)}));
  EXPECT_EQ(o.exit_code, 0) << o.out;
  EXPECT_NE(row(o.out, " 1024 B").find("| +20.0% |"), std::string::npos) << o.out;
  EXPECT_TRUE(row(o.out, " 1024 B").ends_with("| same |")) << o.out;
}

TEST_F(CompareCli, ReplayStepsCompareEachPassAndFoldersPairAcrossFiles) {
  write("base/perf.jsonl", {perf_record(1024, samples_around(10))});
  write("base/replay.jsonl", {step_record(50)});
  write("new/replay.jsonl", {step_record(65)});
  write("new/perf.jsonl", {perf_record(1024, samples_around(10))});
  const Outcome o = compare(dir_ / "base", dir_ / "new");
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  std::istringstream lines(o.out);
  int step_rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("| step")) continue;
    ++step_rows;
    const bool overlapped = line.find("| overlapped step_ms |") != std::string::npos;
    EXPECT_TRUE(line.ends_with(overlapped ? "| slower |" : "| same |")) << line;
  }
  EXPECT_EQ(step_rows, 3) << o.out;
}

TEST_F(CompareCli, RecordsWithoutSamplesShowTheChangeButAreNeverJudged) {
  json old_base = perf_record(1024, samples_around(10)), old_new = perf_record(1024, {20});
  old_base.erase("time_samples_us");
  old_new.erase("time_samples_us");
  const Outcome o = compare(write("base.jsonl", {old_base}), write("new.jsonl", {old_new}));
  // Nothing could be tested: not a pass (exit 7), one line on stderr saying so, the table shown.
  EXPECT_EQ(o.exit_code, 7) << o.out;
  EXPECT_NE(row(o.out, " 1024 B").find("| +100.0% | - | 0/0 | untested |"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("1 not tested"), std::string::npos) << o.out;
  EXPECT_EQ(count_lines(o.err), 1) << o.err;
  EXPECT_NE(o.err.find("compare: nothing tested: none of the 1 paired times carries per-iteration "
                       "samples on both sides (exit 7)"),
            std::string::npos)
      << o.err;
}

// One time tested among untested ones (a step beside its unit records): the gate has evidence.
TEST_F(CompareCli, SomethingTestedBesideUntestedTimesIsAVerdict) {
  json old_base = perf_record(1024, samples_around(10)), old_new = perf_record(1024, {10});
  old_base.erase("time_samples_us");
  old_new.erase("time_samples_us");
  const json tested = perf_record(2048, samples_around(12));
  const Outcome o = compare(write("base.jsonl", {old_base, tested}),
                            write("new.jsonl", {old_new, tested}));
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_TRUE(o.err.empty()) << o.err;
}

TEST_F(CompareCli, BadInputExitsTwoWithOneLineAndNoTable) {
  const json good = perf_record(1024, samples_around(10));
  const fs::path base = write("base.jsonl", {good, perf_record(2048, samples_around(12))});
  json no_time = good, bad_samples = good;
  no_time.erase("time_us");
  no_time.erase("time_p50_us");
  bad_samples["time_samples_us"] = {1.0, "fast"};
  std::ofstream(dir_ / "garbled.jsonl") << good.dump() << "\n{\"op\": \n";
  const fs::path counters = write("counters.jsonl", {{{"record", "counters"}, {"t_s", 1}}});
  const fs::path empty_dir = dir_ / "empty";
  fs::create_directories(empty_dir);
  struct Bad {
    fs::path candidate;
    std::string flags, names;
  };
  const std::vector<Bad> bad = {
      {write("missing_size.jsonl", {good}), "", "no partner in NEW"},
      {write("extra_size.jsonl", {good, perf_record(2048, samples_around(12)),
                                  perf_record(4096, samples_around(14))}),
       "", "no partner in BASE"},
      {dir_ / "garbled.jsonl", "", "garbled.jsonl:2"},
      {dir_ / "no-such.jsonl", "", "no-such.jsonl"},
      {counters, "", "no perf, step or unit records"},
      {empty_dir, "", "empty"},
      {write("no_time.jsonl", {no_time, perf_record(2048, samples_around(12))}), "", "time"},
      {write("bad_samples.jsonl", {bad_samples, perf_record(2048, samples_around(12))}), "",
       "time_samples_us"},
      {base, "--threshold -1", "--threshold"},
      {base, "--threshold nan", "--threshold"},
      {base, "--threshold fast", "--threshold"},
  };
  for (const Bad& b : bad) {
    const Outcome o = compare(base, b.candidate, b.flags);
    const std::string what = b.candidate.filename().string() + " " + b.flags;
    EXPECT_EQ(o.exit_code, 2) << what << "\n" << o.out << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << what << "\n" << o.err;
    EXPECT_NE(o.err.find(b.names), std::string::npos) << what << "\n" << o.err;
    EXPECT_EQ(o.out, "") << what << ": a table for input it refused";
  }
  const Outcome one_side = run((bin_dir() / "compare").string() + " " + base.string());
  EXPECT_EQ(one_side.exit_code, 2) << one_side.err;
}

}  // namespace
}  // namespace collreplay::cli_test
