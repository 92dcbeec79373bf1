// What replay promises a user before and after anything runs: it refuses a run that would not
// fit in memory (one line, exit 2) instead of being killed by the kernel; per-rank schedules
// for all_to_allv; --out checked and agreed on by every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;
using namespace cli_test;

const std::string kTinyMoe = "--model sweeps/models/replay-tiny-moe.json";

std::string replay_path() { return (bin_dir() / "replay").string(); }
std::string mpirun(int ranks) { return mpirun_command() + " -np " + std::to_string(ranks) + " "; }

// Under mpirun every rank agrees and rank 0 alone speaks: one "replay: error:" line (mpirun adds
// its own notice about the exit code around it).
void expect_one_line_usage_error(const Outcome& o, const std::string& names) {
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  const std::string prefix = "replay: error: ";
  const std::size_t at = o.err.find(prefix);
  ASSERT_NE(at, std::string::npos) << o.err;
  EXPECT_EQ(at, o.err.rfind(prefix)) << "more than one rank spoke: " << o.err;
  const std::string line = o.err.substr(at, o.err.find('\n', at) - at);
  EXPECT_NE(line.find(names), std::string::npos) << o.err;
}

class ReplaySafety : public ScratchDirTest {};

// 200,000 tokens of a 0.5B model: the LM head's fp32 output alone is 120 GB per rank.
TEST_F(ReplaySafety, ARunThatDoesNotFitIsRefusedBeforeAllocating) {
  const Outcome o = run(mpirun(2) + replay_path() +
                        " --backend mpi --model qwen2.5-0.5b --layers 1 --seq 200000");
  expect_one_line_usage_error(o, "per rank");
  EXPECT_NE(o.err.find("available to each of the 2 ranks on this host; try --layers or fewer "
                       "ranks per node"),
            std::string::npos)
      << o.err;
}

TEST_F(ReplaySafety, DryRunPrintsTheFootprint) {
  const Outcome table = run(replay_path() +
                            " --dry-run --model qwen2.5-7b --layers 2 --seq 16 "
                            "--world 2");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("# memory, host run (--backend mpi): "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("# memory, GPU run (nccl): "), std::string::npos) << table.out;
  const Outcome json = run(replay_path() +
                           " --dry-run --format json --model qwen2.5-7b "
                           "--layers 2 --seq 16 --world 2");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_GT(j["memory_per_rank"]["host_run"]["bytes"].get<double>(), 1e9);
}

TEST_F(ReplaySafety, AllToAllvSchedulesArePerRank) {
  const std::string pattern = (dir_ / "rank%d.json").string();
  ASSERT_EQ(run(replay_path() + " --dry-run " + kTinyMoe +
                " --world 2 --ep 2 --seq 64 "
                "--routing zipf:1.5 --save-schedule " +
                pattern)
                .exit_code,
            0);
  ASSERT_TRUE(fs::exists(dir_ / "rank0.json"));
  ASSERT_TRUE(fs::exists(dir_ / "rank1.json"));
  // One rank's file replayed by both ranks would give rank 1 rank 0's counts: refused, alike.
  const Outcome one = run(mpirun(2) + replay_path() + " --backend mpi --schedule " +
                          (dir_ / "rank0.json").string());
  expect_one_line_usage_error(one, "rank%d");
  // The per-rank pattern replays, and every all_to_allv checks out exactly (-c).
  const Outcome each = run(mpirun(2) + replay_path() +
                           " --backend mpi --steps 1 --warmup 0 -c "
                           "--schedule '" +
                           pattern + "'");
  EXPECT_EQ(each.exit_code, 0) << each.out << each.err;
  EXPECT_NE(each.out.find("-c: "), std::string::npos) << each.out;
}

TEST_F(ReplaySafety, UnwritableOutStopsEveryRankAlike) {
  const Outcome o = run(mpirun(2) + replay_path() + " --backend mpi " + kTinyMoe +
                        " --world 2 --layers 1 --seq 16 --out /nonexistent-dir/r.jsonl");
  expect_one_line_usage_error(o, "/nonexistent-dir/r.jsonl");
}

}  // namespace
}  // namespace collreplay
