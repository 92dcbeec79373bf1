// sweeps/gpu/travels/fidelity_travels.sh without a GPU: make, nvidia-smi, the launchers and the
// calibration stood in for by stubs. When the call's own calibration writes nothing, the rows
// that would be replayed against it are skipped, failing, rather than run against whatever
// calibration an earlier call left. Needs python3.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
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
    // The calibration refuses, as it does when the host moved between its runs; anything else
    // goes to the real python3.
    const Outcome real = run("command -v python3");
    stub("python3", "case \"$1\" in *host_time_calibrate.py)\n"
                    "  echo calibrate >>" + log + "\n"
                    "  echo 'host_time_calibrate.py: the host moved' >&2; exit 1;;\n"
                    "esac\n"
                    "exec " + real.out.substr(0, real.out.find('\n')) + " \"$@\"\n");
  }

  void stub(const std::string& name, const std::string& body) {
    const fs::path path = dir_ / "bin" / name;
    std::ofstream(path) << "#!/bin/bash\n" << body;
    fs::permissions(path, fs::perms::owner_all);
  }
};

TEST_F(FidelityTravels, RowsAreSkippedWhenThisCallsCalibrationWroteNone) {
  const Outcome o = run("CALIBRATE_ATTEMPTS=1 PATH=" + (dir_ / "bin").string() + ":$PATH " +
                        script_ + " " + (dir_ / "out").string() + " calibrate table grouped");
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  // The calibration ran once; no reference or replay did.
  EXPECT_EQ(slurp(dir_ / "calls.log"), "calibrate\n");
  const std::string summary = slurp(dir_ / "out" / "summary.txt");
  EXPECT_NE(summary.find("q05 q7 q72 mix skipped: this call's calibration wrote none"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("mixg skipped: this call's calibration wrote none"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("done: SOME FAILED"), std::string::npos) << summary;
}

}  // namespace
}  // namespace collreplay::cli_test
