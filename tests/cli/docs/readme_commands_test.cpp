// tests/readme_commands.sh (run by tests/run_all.sh on the repository) runs the commands the
// READMEs show and fails on one that does not exit as its README says.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

class ReadmeCommands : public ScratchDirTest {
 protected:
  void readme(const std::string& text) {
    for (const char* d : {"tests", "sweeps", "workloads"}) fs::create_directories(dir_ / d);
    std::ofstream(dir_ / "README.md") << text;
  }
  Outcome check() {
    return run(fs::absolute("tests/readme_commands.sh").string() + " " + bin_dir().string() +
               " " + dir_.string());
  }
};

TEST_F(ReadmeCommands, RunsEachShownCommandAndFailsOnOneThatDoesNot) {
  readme("```\n$ build/bin/advise --model qwen2.5-0.5b --layers 2 --seq 512 \\\n"
         "    --gpus-per-node 2 --nodes 2 --fabric eth-1g\n```\n"
         "```\nbuild/bin/project --validate sweeps\n```\n(exit 2)\n");
  const Outcome ok = check();
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("2 README commands ran as documented"), std::string::npos) << ok.out;

  readme("```\nbuild/bin/project --model no-such-model --fabric eth-1g --compute model:h100\n```\n");
  const Outcome bad = check();
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("README.md: exit 2 (the README says 0)"), std::string::npos) << bad.out;

  // A command inside a list item, its fence indented, runs too.
  readme("1. A step:\n   ```\n   build/bin/project --model no-such-model --fabric eth-1g\n   ```\n");
  const Outcome listed = check();
  EXPECT_EQ(listed.exit_code, 1) << listed.out;
  EXPECT_NE(listed.out.find("exit 2 (the README says 0)"), std::string::npos) << listed.out;

  readme("no commands here\n");
  EXPECT_EQ(check().exit_code, 1) << "a README with nothing to run is not a pass";
}

}  // namespace
}  // namespace collreplay::cli_test
