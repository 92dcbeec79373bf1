// sweeps/gpu/travels/host_time_calibrate.py (issue 38): the foreach optimizer step's host time
// fitted as a cost per step, per parameter tensor and per launch from three reference steps, the
// fused step's per step and per tensor beside its launches from two, each per launch that replay
// issues for the same workload (a stand-in replay's dry run gives its counts), and written into
// the calibration replay reads; a CPU list it cannot run on is one line and exit 2.
// The references' records are given (--records), so no torch is needed. Needs python3.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

using nlohmann::json;

class HostTimeCalibrate : public PythonScriptTest {
 protected:
  // One workload's step record in its reference process's records, as reference_step.py
  // writes them (one process a depth sweeps the optimizers, a step record each; the 7B's runs
  // foreach alone): host ms per phase at each step (the given ones the fastest, after a step
  // 1.5x slower, so its medians are 1.25x them) and the optimizer's tensors. A record of the
  // same optimizer already in the file is replaced.
  void record(const std::string& name, double forward_ms, double backward_ms, double optimizer_ms,
              int tensors, int run = 1) {
    const std::string optimizer = name.substr(0, name.rfind('_'));
    const json step = {{"record", "step"},
                       {"optimizer", optimizer},
                       {"host_forward_ms", 1.25 * forward_ms},
                       {"host_backward_ms", 1.25 * backward_ms},
                       {"host_optimizer_ms", 1.25 * optimizer_ms},
                       {"host_step_ms",
                        {{1.5 * forward_ms, 1.5 * backward_ms, 1.5 * optimizer_ms},
                         {forward_ms, backward_ms, optimizer_ms}}},
                       {"optimizer_tensors", tensors},
                       {"overlapped_ms", forward_ms + backward_ms + optimizer_ms},
                       {"run",
                        {{"hosts", {"gpu-node-3"}},
                         {"cpu", "Intel(R) Xeon(R) Platinum 8480C"},
                         {"cpus", cpus_},
                         {"cpus_online", 16},
                         {"pinned", cpus_ != "0-15"},
                         {"python", "3.12.3"},
                         {"devices", {"NVIDIA H200"}},
                         {"library_versions", {{"torch", "2.11.0+cu130"}}}}}};
    const std::string process =
        name == "foreach_wide" ? name : "sweep_" + name.substr(name.rfind('_') + 1);
    write_step(dir_ / "records" / ("reference_" + process + ".r" + std::to_string(run) + ".jsonl"),
               step);
  }

  // `step` into a process's records, in place of its optimizer's record if there is one.
  static void write_step(const std::filesystem::path& file, const json& step) {
    std::string kept;
    if (std::filesystem::exists(file))
      for (const json& other : read_jsonl(file))
        if (other["optimizer"] != step["optimizer"]) kept += other.dump() + "\n";
    std::ofstream(file) << kept << step.dump() << "\n";
  }

  // The calibration fitted from the records in dir_/records into out(), replay's launches
  // from a stand-in whose dry run prints replay_counts_ (keyed "MODEL LAYERS OPTIMIZER"), each
  // phase's as one op of half GEMMs, half kernel launches: a GEMM is a launch, as replay pays it.
  std::filesystem::path out() const { return dir_ / "host_time.json"; }
  Outcome calibrate(int repeats = 1, int deep_layers = 12) {
    std::ofstream(dir_ / "replay_counts.json") << replay_counts_.dump();
    const std::filesystem::path replay = dir_ / "replay";
    write_executable(replay,
                     "#!/usr/bin/env python3\n"
                     "import json, os, sys\n"
                     "a = sys.argv[1:]\n"
                     "key = ' '.join(a[a.index(f) + 1] for f in "
                     "('--model', '--layers', '--optimizer'))\n"
                     "counts = json.load(open(os.path.join(os.path.dirname(__file__), "
                     "'replay_counts.json')))[key]\n"
                     "print(json.dumps({'compute_ops': [{'phase': p, 'gemms': n // 2, "
                     "'kernels': [{'launches': n - n // 2}]} "
                     "for p, n in counts.items()]}))\n");
    return run("python3 " + script_ + " --repeats " + std::to_string(repeats) + " --deep-layers " +
               std::to_string(deep_layers) + " --records " + (dir_ / "records").string() +
               " --replay " + replay.string() + " --out " + out().string());
  }
  // Replay's counts for a workload as reference_step.py's flags name it.
  void replay_counts(const std::string& name, int forward, int backward, int optimizer) {
    const std::string depth = name.substr(name.rfind('_') + 1);
    const std::string key = depth == "wide" ? "qwen2.5-7b 1" : "qwen2.5-0.5b " + depth;
    const std::string optimizer_flag = name.substr(0, name.rfind('_'));
    replay_counts_[key + " adamw-" + optimizer_flag] = {
        {"forward", forward}, {"backward", backward}, {"optimizer", optimizer}};
  }

  // The figures one_round's host is built of.
  static void expect_one_round_host(const json& cal) {
    EXPECT_NEAR(cal["optimizer_multi_fixed_us"].get<double>(), 300, 1e-6);
    EXPECT_NEAR(cal["optimizer_multi_tensor_us"].get<double>(), 20, 1e-6);
    EXPECT_NEAR(cal["optimizer_multi_us"].get<double>(), 8, 1e-6);
    EXPECT_NEAR(cal["optimizer_fused_fixed_us"].get<double>(), 150, 1e-6);
    EXPECT_NEAR(cal["optimizer_fused_tensor_us"].get<double>(), 25, 1e-6);
    EXPECT_NEAR(cal["forward_us"].get<double>(), 40, 1e-6);
    EXPECT_NEAR(cal["forward_fixed_us"].get<double>(), 1000, 1e-6);
    EXPECT_NEAR(cal["backward_us"].get<double>(), 50, 1e-6);
  }

  std::string cpus_ = "2";  // the CPUs the runs were held to, as reference_step.py records them
  json replay_counts_ = json::object();

  // The six workloads of a host where the foreach step costs 300 us, 20 a tensor and 8 a launch,
  // the fused step 150 us, 25 a tensor and 8 a launch, forward 1000 us a pass and 40 a launch,
  // backward 50 a launch, the optimizer loop 70 a launch: their launches per phase and their
  // optimizer's tensors.
  struct Workload {
    std::string name;
    int forward, backward, optimizer, tensors;
  };
  const std::vector<Workload> workloads_ = {
      {"foreach_1", 77, 166, 64, 14},  {"fused_1", 77, 166, 3, 14},
      {"loop_12", 179, 436, 304, 146}, {"foreach_12", 179, 436, 72, 146},
      {"fused_12", 179, 436, 4, 146},  {"foreach_wide", 80, 170, 300, 15}};

  // One run of workload `name` on that host, every phase `slower` times its figure.
  void slowed(const std::string& name, double slower, int run = 1) {
    const auto w = std::find_if(workloads_.begin(), workloads_.end(),
                                [&](const Workload& each) { return each.name == name; });
    ASSERT_NE(w, workloads_.end()) << "no workload " << name;
    std::filesystem::create_directories(dir_ / "records");
    const double optimizer_ms = w->name.starts_with("loop") ? 0.07 * w->optimizer
                                : w->name.starts_with("fused")
                                    ? (150 + 25.0 * w->tensors + 8.0 * w->optimizer) / 1e3
                                    : (300 + 20.0 * w->tensors + 8.0 * w->optimizer) / 1e3;
    record(w->name, slower * (1 + 0.04 * w->forward), slower * 0.05 * w->backward,
           slower * optimizer_ms, w->tensors, run);
  }

  void one_round(int run = 1) {
    for (const Workload& w : workloads_) slowed(w.name, 1, run);
  }

  HostTimeCalibrate() : PythonScriptTest("sweeps/gpu/travels/host_time_calibrate.py") {
    for (const Workload& w : workloads_) replay_counts(w.name, w.forward, w.backward, w.optimizer);
  }
};

TEST_F(HostTimeCalibrate, TheForeachStepIsFittedPerStepPerTensorAndPerLaunch) {
  one_round();
  const Outcome o = calibrate();
  ASSERT_EQ(o.exit_code, 0) << o.err << o.out;
  const json cal = json::parse(slurp(out()));
  expect_one_round_host(cal);
  EXPECT_NEAR(cal["optimizer_loop_us"].get<double>(), 70, 1e-6);
  // Where the runs ran comes from their records, not from the host fitting them.
  EXPECT_EQ(cal["host"], "gpu-node-3");
  EXPECT_EQ(cal["cpu"], "Intel(R) Xeon(R) Platinum 8480C");
  EXPECT_EQ(cal["cpus"], "2 (taskset)");
  EXPECT_EQ(cal["python"], "3.12.3");
  EXPECT_EQ(cal["gpu"], "NVIDIA H200");
  EXPECT_EQ(cal["foreach_steps"].size(), 3u);
  EXPECT_NE(o.out.find("20.0 a parameter tensor"), std::string::npos) << o.out;
}

// Runs that could use every CPU of their host were not pinned, and the calibration says so.
TEST_F(HostTimeCalibrate, RunsOnEveryCpuAreSaidNotPinned) {
  cpus_ = "0-15";
  one_round();
  const Outcome o = calibrate();
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(json::parse(slurp(out()))["cpus"], "any of 16 (not pinned)");
  EXPECT_NE(o.out.find("CPUs any of 16 (not pinned)"), std::string::npos) << o.out;
}

// Steps whose host time falls as their tensors grow fit no positive costs: the host time over
// the launches, said as such.
TEST_F(HostTimeCalibrate, StepsNoPositiveCostsFitAreChargedPerLaunch) {
  one_round();
  record("foreach_12", 1 + 0.04 * 179, 0.05 * 436, 0.2, 146);
  record("foreach_wide", 4.0, 8.5, 2.0, 15);
  const Outcome o = calibrate();
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json cal = json::parse(slurp(out()));
  EXPECT_EQ(cal["optimizer_multi_fit"], "per launch alone");
  EXPECT_DOUBLE_EQ(cal["optimizer_multi_tensor_us"].get<double>(), 0);
  EXPECT_GT(cal["optimizer_multi_us"].get<double>(), 0);
}

// Fused steps whose deeper step took less host time than the shallower fit no cost per tensor:
// the two steps' mean, charged per step, said as such.
TEST_F(HostTimeCalibrate, FusedStepsNoCostPerTensorFitsAreChargedPerStep) {
  one_round();
  record("fused_12", 1 + 0.04 * 179, 0.05 * 436, 0.4, 146);
  const Outcome o = calibrate();
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json cal = json::parse(slurp(out()));
  EXPECT_EQ(cal["optimizer_fused_fit"], "per step alone");
  EXPECT_DOUBLE_EQ(cal["optimizer_fused_tensor_us"].get<double>(), 0);
  // (150 + 25 x 14 and 400 - 8 x 4 us beside their launches), halved.
  EXPECT_NEAR(cal["optimizer_fused_fixed_us"].get<double>(), (500 + 368) / 2.0, 1e-6);
  EXPECT_NE(o.out.find("fused optimizer 434 us a step and 0.0 a parameter tensor"),
            std::string::npos)
      << o.out;
}

// Replay pays each figure per launch it issues (GEMMs included): the host time is divided by
// replay's launches for each workload, so a replay issuing twice the launches on the same host
// reads half the cost a launch (forward 20 us, backward 25, the foreach step 4, the loop 35) and
// pays the same host time for the workload; the costs per pass, step and tensor stay.
TEST_F(HostTimeCalibrate, TheHostTimeIsPerLaunchThatReplayIssues) {
  one_round();
  for (const Workload& w : workloads_)
    replay_counts(w.name, 2 * w.forward, 2 * w.backward, 2 * w.optimizer);
  const Outcome o = calibrate();
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json cal = json::parse(slurp(out()));
  EXPECT_NEAR(cal["forward_us"].get<double>(), 20, 1e-6);
  EXPECT_NEAR(cal["forward_fixed_us"].get<double>(), 1000, 1e-6);
  EXPECT_NEAR(cal["backward_us"].get<double>(), 25, 1e-6);
  EXPECT_NEAR(cal["optimizer_multi_us"].get<double>(), 4, 1e-6);
  EXPECT_NEAR(cal["optimizer_multi_tensor_us"].get<double>(), 20, 1e-6);
  EXPECT_NEAR(cal["optimizer_loop_us"].get<double>(), 35, 1e-6);
  EXPECT_NEAR(cal["optimizer_fused_tensor_us"].get<double>(), 25, 1e-6);
  EXPECT_EQ(cal["launches"]["foreach"]["forward"], 2 * 179);
}

// A replay that cannot be run, or whose dry run fails, is one line and exit 2, before any
// reference runs and with no calibration written.
TEST_F(HostTimeCalibrate, AReplayItCannotRunIsOneLineAndExit2) {
  one_round();
  for (const std::string replay : {"/nonexistent/replay", "/bin/false"}) {
    const Outcome o = run("python3 " + script_ + " --records " + (dir_ / "records").string() +
                          " --replay " + replay + " --out " + out().string());
    EXPECT_EQ(o.exit_code, 2) << replay << ": " << o.err;
    EXPECT_NE(o.err.find("--replay " + replay), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << o.err;
    EXPECT_FALSE(std::filesystem::exists(out()));
  }
}

// A workload whose every run came slower than the host's fastest (1.3x its forward, backward and
// optimizer, as a VM's host was seen to run a whole process) is scaled to that speed by its
// forward, which its depth's other workload ran at full speed: the figures of an undisturbed host,
// said in the line.
TEST_F(HostTimeCalibrate, AWorkloadWhoseRunsAllRanSlowerIsScaledToTheHostsFastestSpeed) {
  one_round();
  slowed("foreach_1", 1.3);
  const Outcome o = calibrate();
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json cal = json::parse(slurp(out()));
  expect_one_round_host(cal);
  EXPECT_NEAR(cal["speed_scale"]["foreach_1"].get<double>(), 1 / 1.3, 1e-9);
  EXPECT_DOUBLE_EQ(cal["speed_scale"]["foreach_12"].get<double>(), 1);
  EXPECT_NE(o.out.find("scaled to the host's fastest forward: foreach_1 x0.77 ->"),
            std::string::npos)
      << o.out;
}

// A workload none of whose runs came within 1.5x of its depth's fastest forward (1.8x here) is
// not scaled that far: no calibration, and the refusal lists its runs' fastest forward steps.
TEST_F(HostTimeCalibrate, AWorkloadTooFarFromTheHostsFastestSpeedWritesNoCalibration) {
  one_round();
  slowed("foreach_12", 1.8);
  const Outcome o = calibrate();
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.err.find("the host's speed moved between runs: no run of foreach_12 came within "
                       "1.5x of the fastest forward at its depth, 8.16 ms of host time (its runs' "
                       "fastest forward steps, ms: 14.69)"),
            std::string::npos)
      << o.err;
  EXPECT_FALSE(std::filesystem::exists(out()));
}

// The H200 call whose calibration refused (tests/fixtures/calibration_many_speeds: four rounds,
// the 1-layer forward's fastest steps 4.38 ms over the loop's runs and 3.57 over foreach's) is
// fitted at the host's fastest forward of each depth, the 3-layer foreach step scaled 0.96. Its
// records predate the sweep of each depth in one process and the fused workloads: each of its
// runs (a process a workload) goes into its depth's process records under its optimizer, the
// loop's runs standing in for the fused ones (the same forward and backward; their optimizer
// figures are not asserted), and replay's counts are taken as the reference's own, so the fit
// reads the host's speeds alone.
TEST_F(HostTimeCalibrate, TheH200HostOfManySpeedsIsFittedAtItsFastestForward) {
  const std::filesystem::path fixture =
      bin_dir().parent_path().parent_path() / "tests/fixtures/calibration_many_speeds";
  std::filesystem::create_directories(dir_ / "records");
  const std::vector<std::pair<std::string, std::string>> stand_ins = {
      {"foreach_1", "foreach_1"}, {"fused_1", "loop_1"}, {"loop_3", "loop_3"},
      {"foreach_3", "foreach_3"}, {"fused_3", "loop_3"}, {"foreach_wide", "foreach_wide"}};
  for (const auto& [name, kept] : stand_ins)
    for (int run = 1; run <= 4; ++run) {
      const std::vector<json> kept_records =
          read_jsonl(fixture / ("reference_" + kept + ".r" + std::to_string(run) + ".jsonl"));
      json step = kept_records[0];
      step["optimizer"] = name.substr(0, name.rfind('_'));
      const std::string process =
          name == "foreach_wide" ? name : "sweep_" + name.substr(name.rfind('_') + 1);
      write_step(
          dir_ / "records" / ("reference_" + process + ".r" + std::to_string(run) + ".jsonl"),
          step);
      const json& launches = kept_records[1]["launches"];
      replay_counts(name, launches["forward"], launches["backward"], launches["optimizer"]);
    }
  const Outcome o = calibrate(4, 3);  // its records ran 3 layers deep
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json cal = json::parse(slurp(out()));
  EXPECT_DOUBLE_EQ(cal["forward_floor_ms"]["foreach_1"].get<double>(), 3.5699);
  EXPECT_DOUBLE_EQ(cal["forward_floor_ms"]["loop_3"].get<double>(), 9.2885);
  EXPECT_NEAR(cal["speed_scale"]["foreach_3"].get<double>(), 9.2885 / 9.6912, 1e-9);
  EXPECT_NEAR(cal["forward_us"].get<double>(), 9.2885e3 / 179, 1e-6);
  EXPECT_EQ(cal["gpu"], "NVIDIA H200");
  EXPECT_EQ(cal["cpus"], "2 (taskset)");
}

// Each pass's host time is its fastest step over its runs, each optimizer's its fastest run's
// (each run's medians 1.25x its fastest step, so a fit on medians is off by that): two runs of
// three at a disturbed host (1.8x and 1.5x) move nothing, nor does the fastest run of one
// workload coming in another round than another's. Two of three disturbed runs of the same forward
// would put medians 50% apart.
TEST_F(HostTimeCalibrate, EachPhaseIsTheFastestOfItsRuns) {
  for (int run = 1; run <= 3; ++run) one_round(run);
  const double fused_1_ms = (150 + 25.0 * 14 + 8.0 * 3) / 1e3;
  record("fused_1", 1.8 * (1 + 0.04 * 77), 1.8 * 0.05 * 166, 1.8 * fused_1_ms, 14, 1);
  record("fused_1", 1.5 * (1 + 0.04 * 77), 1.5 * 0.05 * 166, 1.5 * fused_1_ms, 14, 2);
  record("foreach_12", 1.6 * (1 + 0.04 * 179), 0.05 * 436,
         1.6 * (300 + 20.0 * 146 + 8.0 * 72) / 1e3, 146, 3);
  const Outcome o = calibrate(3);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  expect_one_round_host(json::parse(slurp(out())));
}

// Records without each step's host time (an older reference_step.py's) cannot be fitted at the
// fastest step: one line and exit 2 (not 1, a host that moved, which fidelity_travels.sh meets
// with another round), and no calibration.
TEST_F(HostTimeCalibrate, RecordsWithoutEachStepsHostTimeAreOneLineAndExit2) {
  one_round();
  // The 1-layer process's foreach record without host_step_ms; its other records as they were.
  const std::filesystem::path sweep_1 = dir_ / "records" / "reference_sweep_1.r1.jsonl";
  for (json step : read_jsonl(sweep_1))
    if (step["optimizer"] == "foreach") {
      step.erase("host_step_ms");
      write_step(sweep_1, step);
    }
  const Outcome o = calibrate();
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("carries no host time per step (host_step_ms)"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << o.err;
  EXPECT_FALSE(std::filesystem::exists(out()));
}

// A process's records without one of the optimizers the fit reads (a folder another layout of
// runs left) are one line and exit 2, and no calibration.
TEST_F(HostTimeCalibrate, AProcessWithoutAnOptimizersRecordIsOneLineAndExit2) {
  one_round();
  const std::filesystem::path sweep_12 = dir_ / "records" / "reference_sweep_12.r1.jsonl";
  std::string kept;
  for (const json& step : read_jsonl(sweep_12))
    if (step["optimizer"] != "fused") kept += step.dump() + "\n";
  std::ofstream(sweep_12) << kept;
  const Outcome o = calibrate();
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("records sweep_12.r1 hold no step record for fused AdamW"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << o.err;
  EXPECT_FALSE(std::filesystem::exists(out()));
}

// The second depth must be deeper than the first (1 layer): else no line through the two.
TEST_F(HostTimeCalibrate, ASecondDepthNotPastTheFirstIsOneLineAndExit2) {
  one_round();
  for (const char* bad : {"1", "0", "-3"}) {
    const Outcome o = run("python3 " + script_ + " --deep-layers " + bad + " --records " +
                          (dir_ / "records").string() + " --out " + out().string());
    EXPECT_EQ(o.exit_code, 2) << bad << ": " << o.err;
    EXPECT_NE(o.err.find("--deep-layers must be more than 1"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << o.err;
    EXPECT_FALSE(std::filesystem::exists(out()));
  }
}

// The calibration runs its references on the CPUs it is given (the runs it stands for are held
// to them); a CPU list it cannot use is one line and exit 2, before anything is run.
TEST_F(HostTimeCalibrate, ACpuListItCannotUseIsOneLineAndExit2) {
  for (const char* bad : {"abc", "5-2", "0-100000", "1,,2"}) {
    const Outcome o =
        run("python3 " + script_ + " --cpus " + bad + " --out " + (dir_ / "cal.json").string());
    EXPECT_EQ(o.exit_code, 2) << bad << ": " << o.err;
    EXPECT_NE(o.err.find("--cpus"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << o.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "cal.json"));
  }
}

}  // namespace
}  // namespace collreplay::cli_test
