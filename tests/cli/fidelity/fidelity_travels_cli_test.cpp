// sweeps/gpu/travels/fidelity_travels.sh without a GPU: make, nvidia-smi, the launchers and the
// calibration stood in for by stubs. When the call's own calibration writes nothing, the rows
// that would be replayed against it are skipped, failing, rather than run against whatever
// calibration an earlier call left; a refused calibration goes on with one more round of each
// process. Needs python3.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

class FidelityTravels : public PythonScriptTest {
 protected:
  FidelityTravels() : PythonScriptTest("sweeps/gpu/travels/fidelity_travels.sh") {}

  void SetUp() override {
    PythonScriptTest::SetUp();
    if (IsSkipped()) return;
    fs::create_directories(dir_ / "bin");
    const std::string log = (dir_ / "calls.log").string();
    stub("make", "exit 0\n");
    stub("nvidia-smi", "echo 'GPU 0: stub'\n");
    for (const char* launcher : {"torchrun", "mpirun"})
      stub(launcher, "echo " + std::string(launcher) + " >>" + log + "\n");
    // The calibration logs its runs' count and folder and refuses (exit STUB_RC, 1 as when the
    // host moved between its runs); anything else goes to the real python3.
    const Outcome real = run("command -v python3");
    stub("python3", "case \"$1\" in *host_time_calibrate.py)\n"
                    "  while [ $# -gt 0 ]; do case $1 in\n"
                    "    --repeats) repeats=$2;; --records) records=$(basename $2);; esac; shift\n"
                    "  done\n"
                    "  echo \"calibrate $repeats $records\" >>" + log + "\n"
                    "  echo 'host_time_calibrate.py: refused' >&2; exit ${STUB_RC:-1};;\n"
                    "esac\n"
                    "exec " + real.out.substr(0, real.out.find('\n')) + " \"$@\"\n");
  }

  Outcome travels(const std::string& env, const std::string& stages) {
    return run(env + " PATH=" + (dir_ / "bin").string() + ":$PATH " + script_ + " " +
               (dir_ / "out").string() + " " + stages);
  }

  void stub(const std::string& name, const std::string& body) {
    write_executable(dir_ / "bin" / name, "#!/bin/bash\n" + body);
  }
};

TEST_F(FidelityTravels, RowsAreSkippedWhenThisCallsCalibrationWroteNone) {
  const Outcome o = travels("CALIBRATE_ATTEMPTS=1", "calibrate table grouped");
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  // The calibration ran once; no reference or replay did.
  EXPECT_EQ(slurp(dir_ / "calls.log"), "calibrate 3 calibration\n");
  const std::string summary = slurp(dir_ / "out" / "summary.txt");
  EXPECT_NE(summary.find("q05 q7 q72 mix skipped: this call's calibration wrote none"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("mixg skipped: this call's calibration wrote none"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("done: SOME FAILED"), std::string::npos) << summary;
}

// Each phase's host time is the fastest of its runs, so a refused calibration is tried again
// with one more round of each process beside the runs it has, not afresh.
TEST_F(FidelityTravels, ARefusedCalibrationGoesOnWithOneMoreRoundOnTheSameRuns) {
  const Outcome o = travels("CALIBRATE_ATTEMPTS=3", "calibrate");
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_EQ(slurp(dir_ / "calls.log"),
            "calibrate 3 calibration\ncalibrate 4 calibration\ncalibrate 5 calibration\n");
}

// A calibration that cannot run here (no torch, no GPU: exit 2) is not tried again.
TEST_F(FidelityTravels, ACalibrationThatCannotRunHereIsNotTriedAgain) {
  const Outcome o = travels("STUB_RC=2 CALIBRATE_ATTEMPTS=3", "calibrate");
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_EQ(slurp(dir_ / "calls.log"), "calibrate 3 calibration\n");
}

}  // namespace
}  // namespace collreplay::cli_test
