// sweeps/gpu/fidelity.sh without a GPU: torchrun and mpirun stood in for by stubs that log which
// record each run would write. A host-bound row's rounds come round by round over the cases (so a
// stretch of a slower host lands on one of its runs, not all), and bad input is one line and exit
// 2 before anything runs. Needs python3 (the closing summary).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

class FidelityScript : public PythonScriptTest {
 protected:
  FidelityScript() : PythonScriptTest("sweeps/gpu/fidelity.sh") {}

  void SetUp() override {
    PythonScriptTest::SetUp();
    if (IsSkipped()) return;
    fs::create_directories(dir_ / "bin");
    for (const std::string launcher : {"torchrun", "mpirun"})
      write_executable(dir_ / "bin" / launcher,
                       "#!/bin/bash\n"
                       "while [ $# -gt 0 ]; do\n"
                       "  [ \"$1\" = --out ] && echo \"" + launcher + " $(basename \"$2\")\" >>" +
                           (dir_ / "calls.log").string() + "\n"
                       "  shift\n"
                       "done\n");
  }

  Outcome fidelity(const std::string& env, const std::string& cases) {
    return run(env + " PATH=" + (dir_ / "bin").string() + ":$PATH " + script_ + " " +
               (dir_ / "out").string() + " " + cases);
  }
};

TEST_F(FidelityScript, AHostBoundRowsRoundsComeRoundByRoundOverTheCases) {
  const Outcome o = fidelity("", "q05 q7");
  // The stubs write no records: every row is missing, and the run fails.
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_EQ(slurp(dir_ / "calls.log"),
            "torchrun reference_q05.r1.jsonl\nmpirun replay_q05.r1.jsonl\n"
            "torchrun reference_q7.r1.jsonl\nmpirun replay_q7.r1.jsonl\n"
            "torchrun reference_q05.r2.jsonl\nmpirun replay_q05.r2.jsonl\n"
            "torchrun reference_q05.r3.jsonl\nmpirun replay_q05.r3.jsonl\n");
  EXPECT_NE(o.out.find("verdict: FAIL: 2 missing (q05; q7)"), std::string::npos) << o.out;
}

TEST_F(FidelityScript, RoundsGivenAreEveryCasesRounds) {
  const Outcome o = fidelity("ROUNDS=2", "q7 q72");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_EQ(slurp(dir_ / "calls.log"),
            "torchrun reference_q7.r1.jsonl\nmpirun replay_q7.r1.jsonl\n"
            "torchrun reference_q72.r1.jsonl\nmpirun replay_q72.r1.jsonl\n"
            "torchrun reference_q7.r2.jsonl\nmpirun replay_q7.r2.jsonl\n"
            "torchrun reference_q72.r2.jsonl\nmpirun replay_q72.r2.jsonl\n");
}

TEST_F(FidelityScript, AnUnknownCaseOrACountThatIsNoneIsOneLineAndExit2BeforeAnythingRuns) {
  struct Bad {
    std::string env, cases, says;
  };
  for (const Bad& bad : {Bad{"", "q05 bogus", "unknown model case 'bogus'"},
                         Bad{"ROUNDS=0", "q05", "ROUNDS='0' is not a count"},
                         Bad{"ROUNDS=two", "q05", "ROUNDS='two' is not a count"}}) {
    const Outcome o = fidelity(bad.env, bad.cases);
    EXPECT_EQ(o.exit_code, 2) << bad.env << " " << bad.cases << ": " << o.err;
    EXPECT_EQ(count_lines(o.err), 1) << o.err;
    EXPECT_NE(o.err.find(bad.says), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(dir_ / "calls.log")) << bad.env << " " << bad.cases;
  }
}

}  // namespace
}  // namespace collreplay::cli_test
