// sweeps/gpu/fidelity_summary.py, the verdict of a fidelity run (issue 38): every phase of every
// row (fwd+bwd, optimizer, step) is judged within 0.9-1.1 of the reference (a world-1 row's at
// its fastest step), and a failing or a missing row fails the summary's exit code, whatever the
// median. Needs python3.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

using nlohmann::json;

struct Phases {
  double fwd_bwd_ms, optimizer_ms, step_ms;
};

class FidelitySummary : public PythonScriptTest {
 protected:
  FidelitySummary() : PythonScriptTest("sweeps/gpu/fidelity_summary.py") {}

  // One side's step record of world-1 case `c`, as reference_step.py and replay write them:
  // the reference's (`source: reference`) with `p` its fastest steps, as its medians too, and
  // `steps` per-step fwd+bwd samples from its fastest up.
  void write(const std::string& side, const std::string& c, Phases p, int steps = 10,
             const json& extra = json::object()) {
    json r = {{"record", "step"},
              {"model", "qwen2.5-7b"},
              {"fwd_bwd_ms", p.fwd_bwd_ms},
              {"optimizer_ms", p.optimizer_ms},
              {"overlapped_ms", p.step_ms},
              {"optimizer_impl", "foreach"},
              {"optimizer", "adamw-foreach"}};
    if (side == "reference") {
      json samples = json::array();
      for (int i = 0; i < steps; ++i) samples.push_back(p.fwd_bwd_ms * (1 + 0.1 * (i % 2)));
      r.update({{"source", "reference"},
                {"fwd_bwd_step_ms", samples},
                {"fwd_bwd_min_ms", p.fwd_bwd_ms},
                {"optimizer_min_ms", p.optimizer_ms},
                {"overlapped_min_ms", p.step_ms}});
    }
    r.update(extra);
    std::ofstream(dir_ / (side + "_" + c + ".jsonl")) << r.dump() << "\n";
  }

  Outcome summary(const std::string& cases) {
    return run("python3 " + script_ + " world1 " + dir_.string() + " " + cases);
  }
};

TEST_F(FidelitySummary, EveryPhaseWithinItsBandPasses) {
  write("reference", "q7", {91.8, 23.2, 115.1});
  write("replay", "q7", {92.0, 24.0, 117.0});
  write("reference", "q05", {27.0, 3.6, 30.6});
  write("replay", "q05", {28.0, 3.5, 31.5});
  const Outcome r = summary("q7 q05");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("verdict: pass: all 6 judged figures within their band"), std::string::npos)
      << r.out;
}

// The H200 7B row: the step 1.22x and the optimizer 2.0x, fwd+bwd 0.99. Judging the step
// alone would have caught it; judging fwd+bwd alone would not. The median of the steps passes.
TEST_F(FidelitySummary, AFailingPhaseFailsTheSummaryWhateverTheMedian) {
  write("reference", "q7", {91.8, 23.2, 115.1});
  write("replay", "q7", {91.0, 47.4, 115.0});  // the optimizer alone is out of its band
  write("reference", "q72", {83.6, 57.0, 140.7});
  write("replay", "q72", {84.0, 57.5, 141.0});
  write("reference", "q05", {27.0, 3.6, 30.6});
  write("replay", "q05", {27.1, 3.6, 30.7});
  const Outcome r = summary("q7 q72 q05");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("| 23.2 | 47.4 | 2.04 | FAIL |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict: FAIL: 1 FAIL (q7 optimizer 2.04) of 9 judged figures"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("pass:"), std::string::npos) << "no line may call the run a pass:\n"
                                                    << r.out;
}

// A case whose replay never wrote its record (a crash, a timeout) is not left out of the verdict.
TEST_F(FidelitySummary, AMissingRowFailsTheSummary) {
  write("reference", "q7", {91.8, 23.2, 115.1});
  write("replay", "q7", {92.0, 23.5, 116.0});
  write("reference", "mix", {87.7, 45.4, 133.1});
  const Outcome r = summary("q7 mix");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("| mix | missing: reference True, replay False |"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("verdict: FAIL: 1 missing (mix) of 4 judged figures"), std::string::npos)
      << r.out;
}

// A record without a phase (an older replay without optimizer_ms) is a missing figure, not a pass.
TEST_F(FidelitySummary, AMissingPhaseFailsTheSummary) {
  write("reference", "q7", {91.8, 23.2, 115.1});
  std::ofstream(dir_ / "replay_q7.jsonl")
      << json{{"record", "step"}, {"fwd_bwd_ms", 92.0}, {"overlapped_ms", 116.0}}.dump() << "\n";
  const Outcome r = summary("q7");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("1 missing (q7 optimizer)"), std::string::npos) << r.out;
}

// A world-1 row is judged at the reference's fastest step: a reference whose medians a slower
// host stretched out of the band passes where its fastest steps are replay's, and one whose
// fastest steps are out of it fails, whatever its medians. The medians are printed as a figure.
TEST_F(FidelitySummary, AWorld1RowIsJudgedAtTheReferencesFastestStep) {
  const json slow_medians = {{"fwd_bwd_ms", 44.7}, {"optimizer_ms", 5.2}, {"overlapped_ms", 50.2}};
  write("reference", "q05", {34.5, 3.3, 37.8}, 10, slow_medians);
  write("replay", "q05", {34.0, 3.3, 37.3});
  const Outcome fast = summary("q05");
  EXPECT_EQ(fast.exit_code, 0) << fast.out;
  EXPECT_NE(fast.out.find("| 34.5 | 34.0 | 0.99 | pass | 3.3 | 3.3 | 1.00 | pass | 37.8 | 37.3 | "
                          "0.99 | pass |"),
            std::string::npos)
      << fast.out;
  EXPECT_NE(fast.out.find("q05: at the reference's median steps instead (a figure, not judged): "
                          "fwd+bwd 44.7 ms (0.76), optimizer 5.2 ms (0.63), step 50.2 ms (0.74)"),
            std::string::npos)
      << fast.out;
  write("reference", "q05", {30.0, 2.5, 34.0}, 10,
        {{"fwd_bwd_ms", 34.0}, {"optimizer_ms", 3.3}, {"overlapped_ms", 37.3}});
  const Outcome slow = summary("q05");
  EXPECT_EQ(slow.exit_code, 1) << slow.out;
  EXPECT_NE(slow.out.find("verdict: FAIL: 2 FAIL (q05 fwd+bwd 1.13; q05 optimizer 1.32) of 3 "
                          "judged figures"),
            std::string::npos)
      << slow.out;
}

// The H100 call whose 0.5B optimizer failed at 0.80 (tests/fixtures/fidelity_fastest_step): its
// three reference runs and three replays as fidelity.sh leaves them, the fastest run of each
// picked and judged at the reference's fastest steps.
TEST_F(FidelitySummary, TheH100CallWhoseHostMovedIsJudgedAtItsFastestSteps) {
  const fs::path root = bin_dir().parent_path().parent_path();
  fs::copy(root / "tests/fixtures/fidelity_fastest_step", dir_);
  const std::string pick =
      "python3 " + (root / "sweeps/gpu/travels/fastest_round.py").string() + " " + dir_.string();
  for (const std::string side : {"reference_q05", "replay_q05"}) {
    const Outcome picked = run(pick + " " + side + " 3");
    ASSERT_EQ(picked.exit_code, 0) << picked.err;
  }
  const Outcome r = summary("q05 --calibration " + (dir_ / "host_time.json").string());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("| 34.5 | 34.0 | 0.99 | pass | 3.3 | 3.3 | 0.99 | pass | 37.8 | 37.3 | "
                       "0.99 | pass |"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("fwd+bwd 35.9 ms (0.95), optimizer 4.1 ms (0.80), step 40.7 ms (0.92)"),
            std::string::npos)
      << r.out;
  // Its replays were kept as their step records alone: no op carries the host time replay
  // charged, so no host line.
  EXPECT_EQ(r.out.find("reference host ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict: pass: all 3 judged figures within their band"), std::string::npos)
      << r.out;
}

// A reference record older than its fastest-step fields (the H100 7B call of 2026-11-24,
// tests/fixtures/fidelity) has nothing to judge a world-1 row at: each phase is missing, not
// judged at its median.
TEST_F(FidelitySummary, AReferenceWithoutItsFastestStepsIsMissing) {
  const fs::path records = bin_dir().parent_path().parent_path() / "tests/fixtures/fidelity";
  const Outcome r = run("python3 " + script_ + " world1 " + records.string() + " q7");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("| - | 98.9 | - | missing |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict: FAIL: 3 missing (q7 fwd+bwd; q7 optimizer; q7 step)"),
            std::string::npos)
      << r.out;
}

// A reference of too few steps is no median to judge against (the looped MoE reference varied
// 389-802 ms over runs of 5): the row counts as missing, whatever its ratios.
TEST_F(FidelitySummary, AReferenceOfTooFewStepsIsMissing) {
  write("reference", "q3moe", {400.0, 20.0, 430.0}, 5);
  write("replay", "q3moe", {400.0, 20.0, 430.0});
  const Outcome r = summary("q3moe");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("missing: the reference timed 5 steps (< 10)"), std::string::npos) << r.out;
}

// Experts run differently on the two sides are not one workload; the spread of a judged row's
// reference is printed under the table.
TEST_F(FidelitySummary, ExpertsRunDifferentlyFailAndSpreadIsPrinted) {
  write("reference", "q3moeg", {100.0, 20.0, 130.0}, 20, {{"experts", "grouped"}});
  write("replay", "q3moeg", {100.0, 20.0, 130.0}, 10,
        {{"run", {{"command_line", {"replay", "--experts", "looped"}}}}});
  write("reference", "mixg", {100.0, 20.0, 130.0}, 20, {{"experts", "grouped"}});
  write("replay", "mixg", {101.0, 20.0, 131.0}, 10,
        {{"run", {{"command_line", {"replay", "--experts", "grouped"}}}}});
  const Outcome r = summary("q3moeg mixg");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("experts ran grouped in the reference, looped in replay"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("mixg: reference fwd+bwd over 20 steps: fastest 100.0, median 105.0, "
                       "slowest 110.0 ms (spread 10% of the median)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| 100.0 | 101.0 | 1.01 | pass |"), std::string::npos) << r.out;
}

// --calibration: a host-bound row's reference host time per phase at its fastest step beside the
// host time replay charged it (its ops' host_us: the calibration's for replay's launches), saying
// where the host slowed since calibrating (the H100 call
// whose 0.5B reference ran 1.34-1.62x it); a GPU-bound row's host reads its waits and gets no
// line; the verdict stays the phases'. A calibration it cannot read is one line and exit 2.
TEST_F(FidelitySummary, AHostBoundRowSaysWhereTheHostSlowedSinceCalibrating) {
  const json calibration = {{"forward_us", 46.5},
                            {"forward_fixed_us", 247.0},
                            {"backward_us", 32.4},
                            {"backward_fixed_us", 1026.0},
                            {"optimizer_loop_us", 66.5},
                            {"optimizer_multi_us", 4.7},
                            {"optimizer_multi_fixed_us", 829.0},
                            {"optimizer_multi_tensor_us", 37.6}};
  std::ofstream(dir_ / "host_time.json") << calibration.dump();
  // Each step's host ms per phase: the fastest step given, a slower one after it.
  auto host = [](double forward_ms, double backward_ms, double optimizer_ms) {
    return json{{"host_step_ms",
                 {{1.3 * forward_ms, 1.3 * backward_ms, 1.3 * optimizer_ms},
                  {forward_ms, backward_ms, optimizer_ms}}},
                {"optimizer_tensors", 50}};
  };
  // Replay's op records after its step record, each phase's host time on one op (the backward
  // timer's on the recompute and the backward both).
  auto charged = [&](const std::string& c, double forward_ms, double backward_ms,
                     double optimizer_ms) {
    std::ofstream ops(dir_ / ("replay_" + c + ".jsonl"), std::ios::app);
    for (const auto& [phase, ms] :
         {std::pair{"forward", forward_ms}, std::pair{"recompute", 0.4 * backward_ms},
          std::pair{"backward", 0.6 * backward_ms}, std::pair{"optimizer", optimizer_ms}})
      ops << json{{"record", "op"}, {"phase", phase}, {"host_us", 1e3 * ms}}.dump() << "\n";
  };
  write("reference", "q05", {44.7, 5.2, 50.2}, 10, host(15.3, 29.4, 5.0));
  write("replay", "q05", {34.1, 3.3, 37.4});
  charged("q05", 11.407, 21.6, 3.085);
  write("reference", "q05b", {34.0, 3.3, 37.3}, 10, host(11.0, 21.0, 3.2));
  write("replay", "q05b", {34.1, 3.3, 37.4});
  charged("q05b", 11.407, 21.6, 3.085);
  write("reference", "q7", {101.8, 33.7, 135.6}, 10, host(19.3, 54.8, 15.8));
  write("replay", "q7", {101.7, 33.3, 135.0});
  charged("q7", 11.8, 28.7, 9.0);
  // A host faster than the calibration's runs caught it (the H200 call's 0.5B: 0.88x / 0.83x /
  // 0.90x), and looped experts, whose host waits at each expert's sync, get no word of the host.
  for (const std::string c : {"q05f", "mixl"}) {
    json faster = host(9.1, 17.5, 2.7);
    if (c == "mixl") faster.update({{"experts", "looped"}});
    write("reference", c, {29.5, 2.6, 32.1}, 10, faster);
    write("replay", c, {29.2, 2.7, 32.2});
    charged(c, 11.407, 21.6, 3.085);
  }
  const std::string cal = " --calibration " + (dir_ / "host_time.json").string();
  const Outcome r = summary("q05" + cal + " q05b q7 q05f mixl");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // The line under a row, from its case's name to its end ("" where there is none).
  auto host_line = [&](const std::string& c) {
    const size_t at = r.out.find(c + ": reference host ms");
    return at == std::string::npos ? "" : r.out.substr(at, r.out.find('\n', at) - at);
  };
  const std::string said =
      ": reference host ms at its fastest steps against replay's (the calibration's for replay's "
      "launches): ";
  EXPECT_EQ(host_line("q05"), "q05" + said +
                                  "forward 15.3 / 11.4 (1.34x), backward 29.4 / 21.6 (1.36x), "
                                  "optimizer 5.0 / 3.1 (1.62x); past 1.15x: the host ran slower "
                                  "than when calibrated (or on work the calibration's smaller "
                                  "steps lack), and a host-bound row then measures the host");
  // A host that held its speed: the figures, and no word of a move.
  EXPECT_EQ(host_line("q05b"), "q05b" + said +
                                   "forward 11.0 / 11.4 (0.96x), backward 21.0 / 21.6 (0.97x), "
                                   "optimizer 3.2 / 3.1 (1.04x)");
  EXPECT_EQ(host_line("q7"), "");
  EXPECT_EQ(host_line("q05f"), "q05f" + said +
                                   "forward 9.1 / 11.4 (0.80x), backward 17.5 / 21.6 (0.81x), "
                                   "optimizer 2.7 / 3.1 (0.88x); under 0.87x: the host ran faster "
                                   "than any of the calibration's runs caught it, and a host-bound "
                                   "row then measures the host");
  EXPECT_EQ(host_line("mixl"), "");
  EXPECT_NE(r.out.find("verdict: FAIL: 3 FAIL (q05 fwd+bwd 0.76; q05 optimizer 0.63; q05 step "
                       "0.75) of 15 judged figures"),
            std::string::npos)
      << r.out;
  for (const std::string bad : {" --calibration", " --calibration /nonexistent/host_time.json"}) {
    const Outcome o = summary("q05" + bad);
    EXPECT_EQ(o.exit_code, 2) << bad;
    EXPECT_NE(o.err.find("fidelity_summary.py: --calibration"), std::string::npos) << o.err;
  }
  const Outcome multi = run("python3 " + script_ + " multi " + dir_.string() + cal);
  EXPECT_EQ(multi.exit_code, 2) << multi.out;
  EXPECT_NE(multi.err.find("--calibration is for world1 rows, not multi"), std::string::npos)
      << multi.err;
}

// fidelity.sh ROUNDS: of several runs the fastest one (by fwd+bwd at its fastest step) is what
// the summary judges, as the calibration takes the host's fastest steps; no run with a step
// record exits 1.
TEST_F(FidelitySummary, TheFastestRoundIsTheOneJudged) {
  const std::string script =
      (bin_dir().parent_path().parent_path() / "sweeps/gpu/travels/fastest_round.py").string();
  auto host = [](double forward_ms) {
    return json{
        {"host_forward_ms", forward_ms}, {"host_backward_ms", 20.0}, {"host_optimizer_ms", 3.0}};
  };
  write("reference", "q05.r1", {42.0, 3.5, 45.5}, 10, host(16.0));
  // The fastest step of the three runs, in a run whose median is not the least.
  json r2 = host(10.0);
  r2["fwd_bwd_ms"] = 40.0;
  write("reference", "q05.r2", {33.0, 3.4, 36.5}, 10, r2);
  write("reference", "q05.r3", {39.0, 3.6, 42.6}, 10, host(14.0));
  const Outcome picked = run("python3 " + script + " " + dir_.string() + " reference_q05 3");
  EXPECT_EQ(picked.exit_code, 0) << picked.err;
  EXPECT_NE(picked.out.find("judged: the fastest run (33.0; the median run 39.0)"),
            std::string::npos)
      << picked.out;
  // Each run's host time, in the runs' order of fwd+bwd: where the host's speed moved.
  EXPECT_NE(picked.out.find("host time forward / backward / optimizer ms, each run's median step, "
                            "same runs: 10.0 / 20.0 / 3.0; 14.0 / 20.0 / 3.0; 16.0"),
            std::string::npos)
      << picked.out;
  const json chosen = json::parse(slurp(dir_ / "reference_q05.jsonl"));
  EXPECT_DOUBLE_EQ(chosen["fwd_bwd_min_ms"].get<double>(), 33.0);
  EXPECT_DOUBLE_EQ(chosen["fwd_bwd_ms"].get<double>(), 40.0);
  const Outcome none = run("python3 " + script + " " + dir_.string() + " replay_q05 3");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no step record"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace collreplay::cli_test
