// Spawns `replay` (a sibling of this binary) under mpirun on host ranks (MPI + OpenBLAS) with a
// tiny Qwen2-shaped model (sweeps/models/replay-tiny.json): the results file is valid
// JSON Lines with op, unit and step records; the step is physical; tiny compute gives negative
// headroom and stretched compute positive; bad input exits 2 with one line.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "collectives/backend.hpp"
#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;

// Oversubscribed 2-core machines are noisy: the physical bounds get this much slack.
constexpr double kTolerance = 0.20;
const std::string kTinyModel = "--model sweeps/models/replay-tiny.json";
const std::string kQuick = "--steps 2 --warmup 1";

using namespace cli_test;

std::string replay_path() { return (bin_dir() / "replay").string(); }

std::string mpirun(int ranks) { return mpirun_command() + " -np " + std::to_string(ranks) + " "; }

struct Records {
  nlohmann::json step;
  std::vector<nlohmann::json> units, ops;
};

class ReplayRun : public ScratchDirTest {
 protected:
  // Runs a host replay on `ranks` ranks and parses its results file.
  Records replay(int ranks, const std::string& args) {
    const fs::path out = dir_ / "results.jsonl";
    const Outcome o = run(mpirun(ranks) + replay_path() + " --backend mpi " + kTinyModel + " " +
                          args + " --out " + out.string());
    EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
    Records records;
    std::ifstream in(out);
    std::string line;
    while (std::getline(in, line)) {
      const nlohmann::json record = nlohmann::json::parse(line);  // throws on a bad line
      EXPECT_TRUE(record.contains("run")) << line.substr(0, 200);
      EXPECT_EQ(record["run"]["ranks"], ranks);
      const std::string kind = record["record"];
      if (kind == "step") records.step = record;
      if (kind == "unit") records.units.push_back(record);
      if (kind == "op") records.ops.push_back(record);
    }
    EXPECT_FALSE(records.step.is_null()) << o.out;
    last_stdout_ = o.out;
    last_stderr_ = o.err;
    return records;
  }

  std::string last_stdout_, last_stderr_;
};

void expect_physical(const nlohmann::json& step) {
  const double compute = step["compute_ms"], comm = step["comm_ms"];
  const double overlapped = step["overlapped_ms"];
  EXPECT_GT(compute, 0);
  EXPECT_GT(comm, 0);
  EXPECT_GE(overlapped, std::max(compute, comm) * (1 - kTolerance)) << step.dump();
  EXPECT_LE(overlapped, (compute + comm) * (1 + kTolerance)) << step.dump();
  EXPECT_DOUBLE_EQ(step["exposed_comm_ms"].get<double>(), overlapped - compute);
}

// Modeled compute (a timed wait, no BLAS threads) leaves the 2 cores to MPI, so the physical
// bounds hold on a loaded machine; a wait never ends early, so the compute-only step is at least
// the modeled FLOPs / (peak x MFU).
TEST_F(ReplayRun, TwoRanksWriteAValidPhysicalFile) {
  // The tiny model's step becomes ~1.2 s of modeled A100 time, well above what its host
  // collectives take, so the overlapped step is bounded below by the modeled compute (a wait is
  // never early) and above by compute + comm, whatever else runs on the machine.
  constexpr double kMfu = 1.25e-5;
  const Records r =
      replay(2, "--layers 2 --seq 64 -c --steps 2 --warmup 1 --compute model:a100@1.25e-5");
  expect_physical(r.step);
  const double modeled_ms =
      r.step["flops_per_step"].get<double>() / (r.step["peak_tflops"].get<double>() * 1e9 * kMfu);
  EXPECT_DOUBLE_EQ(r.step["peak_tflops"].get<double>(), 312.0);  // the modeled GPU's peak
  EXPECT_GE(r.step["compute_ms"].get<double>(), modeled_ms * (1 - 1e-6)) << r.step.dump();
  EXPECT_NE(r.step["compute_engine"].get<std::string>().find("modeled a100"), std::string::npos);
  EXPECT_EQ(r.step["run"]["compute"], "model:a100@1.25e-05");
  double unit_compute_ms = 0;
  for (const auto& unit : r.units) {
    // Headroom is compute minus the communication that must hide behind it.
    EXPECT_NEAR(unit["headroom_ms"].get<double>(),
                unit["compute_ms"].get<double>() - unit["comm_ms"].get<double>(), 1e-6)
        << unit.dump();
    unit_compute_ms += unit["compute_ms"].get<double>();
  }
  EXPECT_GE(unit_compute_ms, modeled_ms * (1 - 1e-6));
  EXPECT_EQ(r.step["world"], 2);
  EXPECT_EQ(r.units.size(), 4u);  // root, layers.0, layers.1, optimizer
  for (const auto& unit : r.units)
    for (const char* key : {"compute_ms", "comm_ms", "headroom_ms", "headroom_ratio"})
      EXPECT_TRUE(unit.contains(key)) << key;
  EXPECT_GE(r.ops.size(), 10u);
  for (const char* key : {"overlap_efficiency", "compute_slowdown", "tokens_per_s", "mfu", "passes",
                          "collective_buffer_bytes"})
    EXPECT_TRUE(r.step.contains(key)) << key;
  // The timeline and straggler fields plots read: every op has start <= end within the step,
  // and there is one overlapped step time per rank.
  const double step_ms = r.step["overlapped_ms"];
  for (const auto& op : r.ops) {
    ASSERT_TRUE(op.contains("start_ms") && op.contains("end_ms")) << op["name"];
    EXPECT_GE(op["start_ms"].get<double>(), 0) << op["name"];
    EXPECT_LE(op["start_ms"].get<double>(), op["end_ms"].get<double>()) << op["name"];
    // Within its own step, which may be a slower one than the median the step record reports.
    EXPECT_LE(op["end_ms"].get<double>(), 3 * step_ms) << op["name"];
  }
  ASSERT_TRUE(r.step["rank_step_ms_all"].is_array());
  EXPECT_EQ(r.step["rank_step_ms_all"].size(), 2u);
  EXPECT_NE(last_stdout_.find("-c: "), std::string::npos);
  EXPECT_NE(last_stdout_.find("headroom per unit"), std::string::npos);
  EXPECT_NE(last_stdout_.find("straggler view"), std::string::npos);
}

// Four ranks on two cores: BLAS threads would fight MPI, so compute is modeled (~1 s a step).
TEST_F(ReplayRun, FourRanksWriteAValidPhysicalFile) {
  const Records r =
      replay(4, "--layers 1 --seq 32 --compute model:a100@0.000005 --progress " + kQuick);
  expect_physical(r.step);
  // --progress: rank 0 alone says what it runs, then each pass, on stderr.
  const std::string& err = last_stderr_;
  EXPECT_NE(err.find(" fsdp1 on 4 rank(s), "), std::string::npos) << err;
  const std::size_t last_pass = err.find("replay: pass 3/3 (");
  ASSERT_NE(last_pass, std::string::npos) << err;
  EXPECT_EQ(err.find("replay: pass 3/3 (", last_pass + 1), std::string::npos) << err;
  EXPECT_EQ(r.step["passes"]["overlapped"]["rank_step_ms"]["slowest_host"].is_string(), true);
}

TEST_F(ReplayRun, TinyComputeGivesNegativeHeadroom) {
  // Modeled compute (a timed wait at the GPU's speed) so the outcome does not depend on how
  // busy this machine's cores are: microseconds of compute against milliseconds of comm (no
  // modeled host launch time, which --compute-scale leaves as it is).
  const Records r = replay(
      2, "--layers 2 --seq 64 --compute model:h100@1 --compute-scale 0.01 --host-time none " +
             kQuick);
  EXPECT_GT(r.step["comm_ms"].get<double>(), r.step["compute_ms"].get<double>());
  const double lowest =
      std::min_element(r.units.begin(), r.units.end(), [](auto& a, auto& b) {
        return a["headroom_ms"].template get<double>() < b["headroom_ms"].template get<double>();
      })->at("headroom_ms");
  EXPECT_LT(lowest, 0) << last_stdout_;
}

TEST_F(ReplayRun, StretchedComputeGivesPositiveHeadroom) {
  // Modeled compute at a crawl: seconds of compute against milliseconds of comm.
  const Records r =
      replay(2, "--layers 1 --seq 32 --compute model:a100@0.000005 --compute-scale 8 " + kQuick);
  for (const auto& unit : r.units) EXPECT_GT(unit["headroom_ms"].get<double>(), 0) << unit.dump();
  EXPECT_DOUBLE_EQ(r.step["compute_scale"].get<double>(), 8);
}

// Bad input: exit 2 and exactly one line on stderr naming the problem.
void expect_usage_error(const Outcome& o, const std::string& names) {
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_NE(o.err.find(names), std::string::npos) << o.err;
}

TEST_F(ReplayRun, LayersZeroIsAUsageError) {
  expect_usage_error(run(replay_path() + " " + kTinyModel + " --layers 0"), "--layers");
}

TEST_F(ReplayRun, ScheduleForAnotherWorldIsAUsageError) {
  const std::string file = (dir_ / "world4.json").string();
  ASSERT_EQ(run(replay_path() + " --dry-run " + kTinyModel +
                " --layers 1 --world 4 "
                "--save-schedule " +
                file)
                .exit_code,
            0);
  expect_usage_error(run(replay_path() + " --backend mpi --schedule " + file), "4 ranks");
  // Under mpirun every rank agrees; rank 0 alone speaks.
  const Outcome two = run(mpirun(2) + replay_path() + " --backend mpi --schedule " + file);
  EXPECT_EQ(two.exit_code, 2) << two.err;
  const std::string line = "error: the schedule is for 4 ranks";
  EXPECT_NE(two.err.find(line), std::string::npos) << two.err;
  EXPECT_EQ(two.err.find(line), two.err.rfind(line)) << two.err;
}

// One more rank than this host has GPUs (here, without a GPU: one rank asking for NCCL).
TEST_F(ReplayRun, MoreRanksPerNodeThanGpusIsAUsageError) {
  const int ranks = visible_gpu_count() + 1;
  const Outcome o =
      run(mpirun(ranks) + replay_path() + " --backend nccl " + kTinyModel + " --layers 1 --seq 32");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("error:"), std::string::npos) << o.err;
}

TEST_F(ReplayRun, BadReplayFlagsAreUsageErrors) {
  expect_usage_error(run(replay_path() + " " + kTinyModel + " --stable 2x"), "--stable");
  expect_usage_error(run(replay_path() + " " + kTinyModel + " --target-mfu 2"), "--target-mfu");
  expect_usage_error(run(replay_path() + " " + kTinyModel + " -G -3"), "-G must be >= 0");
  expect_usage_error(run(replay_path() + " --backend mpi " + kTinyModel + " -G 3"),
                     "-G needs the nccl backend");
}

TEST_F(ReplayRun, HelpDefinesTheMetrics) {
  const Outcome o = run(replay_path() + " --help");
  EXPECT_EQ(o.exit_code, 0);
  for (const char* name : {"headroom_ms", "headroom_ratio", "exposed_comm_ms", "overlap_efficiency",
                           "compute_slowdown", "tokens_per_s", "mfu", "optimizer_ms", "What-ifs"})
    EXPECT_NE(o.out.find(name), std::string::npos) << name;
}

}  // namespace
}  // namespace collreplay
