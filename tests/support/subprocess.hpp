// What the suites that start executables share (cli/ and those after it): running a sibling
// executable (or mpirun) as a shell command in a scratch directory and reading back its exit code,
// stdout and stderr.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace collreplay::cli_test {

namespace fs = std::filesystem;

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Lines in a program's output (one-line errors are a rule the CLI tests hold).
inline int count_lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// The records of a JSON Lines results file, in order.
inline std::vector<nlohmann::json> read_jsonl(const fs::path& path) {
  std::vector<nlohmann::json> records;
  std::istringstream in(slurp(path));
  std::string line;
  while (std::getline(in, line)) records.push_back(nlohmann::json::parse(line));
  return records;
}

// A stand-in executable (a script with its #! line) at `path`, for a test to put on PATH or pass
// as a program.
inline void write_executable(const fs::path& path, const std::string& script) {
  std::ofstream(path) << script;
  fs::permissions(path, fs::perms::owner_all);
}

// The executables are this test binary's siblings in build/bin.
inline fs::path bin_dir() { return fs::read_symlink("/proc/self/exe").parent_path(); }

// The launcher with this machine's flags: run_all.sh exports it; by hand, tests/mpirun_flags.
inline std::string mpirun_command() {
  if (const char* command = std::getenv("COLLREPLAY_MPIRUN")) return command;
  std::string flags = slurp("tests/mpirun_flags");
  while (!flags.empty() && flags.back() == '\n') flags.pop_back();
  return "mpirun " + flags;
}

// A fixture with a fresh scratch directory; run() leaves no stdout/stderr files in it.
class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/collreplay-cli-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome run(const std::string& command_line) {
    const std::string command = command_line + " >" + (dir_ / "stdout").string() + " 2>" +
                                (dir_ / "stderr").string() + " </dev/null";
    const int status = std::system(command.c_str());
    Outcome outcome;
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    outcome.out = slurp(dir_ / "stdout");
    outcome.err = slurp(dir_ / "stderr");
    fs::remove(dir_ / "stdout");
    fs::remove(dir_ / "stderr");
    return outcome;
  }

  fs::path dir_;
};

// A scratch-dir fixture for one of the checkout's Python scripts: skipped without python3;
// script_ is the script's path in the checkout the tests were built from.
class PythonScriptTest : public ScratchDirTest {
 protected:
  explicit PythonScriptTest(std::string relative_path) : relative_path_(std::move(relative_path)) {}
  void SetUp() override {
    ScratchDirTest::SetUp();
    if (std::system("python3 -c pass >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "python3 is not installed (make deps installs it)";
    script_ = (bin_dir().parent_path().parent_path() / relative_path_).string();
  }

  std::string script_;

 private:
  std::string relative_path_;
};

}  // namespace collreplay::cli_test
