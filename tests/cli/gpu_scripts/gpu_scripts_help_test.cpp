// Every file under sweeps/gpu is run by a test, without a GPU or torch: each script a user runs
// (a .py with a __main__, a .sh with a #! line) answers --help with its usage and exit 0 before
// it imports torch or calls nvidia-smi, torchrun, mpirun, make or nvcc (stand-ins for them say
// so), in a usage of a few lines; every other file is a module or a sourced part that one of the
// scripts uses. The scripts' own behaviour is held by the tests beside them (tests/cli/fidelity/,
// tests/cli/torch_traces/).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

constexpr int kMaxUsageLines = 12;

fs::path checkout() { return bin_dir().parent_path().parent_path(); }

bool is_python(const fs::path& p) { return p.extension() == ".py"; }
bool is_shell(const fs::path& p) { return p.extension() == ".sh"; }

// A script is what a user runs: python with a __main__ guard, shell with a #! line.
bool is_script(const fs::path& p) {
  const std::string text = slurp(p);
  if (is_python(p)) return text.find("__name__ == \"__main__\"") != std::string::npos;
  return is_shell(p) && text.rfind("#!", 0) == 0;
}

// The usage a reader sees in the file: a python module's docstring, a shell script's comment
// block after its #! line. Its line count.
int usage_lines(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  int lines = 0;
  if (is_python(p)) {
    bool open = false;
    while (std::getline(in, line)) {
      if (!open && line.rfind("#", 0) == 0) continue;  // a #! line
      const auto quotes = line.find("\"\"\"");
      if (!open) {
        if (quotes == std::string::npos) return 0;
        open = true;
        ++lines;
        if (line.find("\"\"\"", quotes + 3) != std::string::npos) return lines;
        continue;
      }
      ++lines;
      if (quotes != std::string::npos) return lines;
    }
    return lines;
  }
  std::getline(in, line);  // #!
  while (std::getline(in, line) && line.rfind("#", 0) == 0) ++lines;
  return lines;
}

std::vector<fs::path> gpu_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(checkout() / "sweeps/gpu"))
    if (entry.is_regular_file() && entry.path().filename().string().front() != '.')
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

class GpuScripts : public ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    // What a script must not reach before it has answered --help.
    fs::create_directories(dir_ / "bin");
    for (const char* tool : {"nvidia-smi", "torchrun", "mpirun", "make", "nvcc"})
      write_executable(dir_ / "bin" / tool,
                       std::string("#!/bin/sh\necho 'stand-in ") + tool +
                           " ran: the script went on before answering --help' >&2\nexit 99\n");
    fs::create_directories(dir_ / "py/torch");
    std::ofstream(dir_ / "py/torch/__init__.py")
        << "raise ImportError('stand-in torch: imported before answering --help')\n";
    has_python_ = std::system("python3 -c pass >/dev/null 2>&1") == 0;
  }

  // `SCRIPT --help` from a scratch folder, with the stand-ins first on PATH and PYTHONPATH.
  Outcome help(const fs::path& script) {
    const std::string interpreter = is_python(script) ? "python3 " : "bash ";
    return run("cd " + (dir_ / "bin").string() + " && PATH=" + (dir_ / "bin").string() +
               ":\"$PATH\" PYTHONPATH=" + (dir_ / "py").string() + " " + interpreter +
               script.string() + " --help");
  }

  // Why `script` does not answer --help as a script must; empty when it does.
  std::string help_problem(const fs::path& script) {
    const Outcome o = help(script);
    const std::string name = script.filename().string();
    if (o.exit_code != 0)
      return name + ": --help exits " + std::to_string(o.exit_code) + ": " + o.err + o.out;
    if ((o.out + o.err).find("stand-in") != std::string::npos) return name + ": " + o.err;
    if (o.out.find(name) == std::string::npos)
      return name + ": --help does not show how to run it: " + o.out;
    return "";
  }

  bool has_python_ = false;
};

TEST_F(GpuScripts, EveryScriptAnswersHelpBeforeTouchingTorchAGpuOrABuild) {
  int scripts = 0;
  for (const fs::path& file : gpu_files()) {
    if (!is_script(file) || (is_python(file) && !has_python_)) continue;
    ++scripts;
    EXPECT_EQ(help_problem(file), "") << file;
  }
  EXPECT_GE(scripts, has_python_ ? 30 : 12) << "the fidelity tools, the reference, the GPU check";
}

TEST_F(GpuScripts, EveryUsageIsAFewLines) {
  for (const fs::path& file : gpu_files()) {
    if (!is_python(file) && !is_shell(file)) continue;
    const int lines = usage_lines(file);
    EXPECT_GT(lines, 0) << file << ": no usage docstring";
    EXPECT_LE(lines, kMaxUsageLines) << file << ": the reasoning belongs in bench/RESULTS.md";
  }
}

// A module is imported, a sourced part sourced, by another file of sweeps/gpu; anything else
// (a probe no script runs, a stray file) has no place there.
TEST_F(GpuScripts, EveryOtherFileIsUsedByAScript) {
  const std::vector<fs::path> files = gpu_files();
  for (const fs::path& file : files) {
    if (is_script(file)) continue;
    const std::string stem = file.stem().string();
    const std::regex use =
        is_python(file) ? std::regex("(from|import) ([a-z_]+\\.)?" + stem + "\\b")
                        : std::regex("(\\.|source) [^\\n]*" + file.filename().string());
    const bool used = std::any_of(files.begin(), files.end(), [&](const fs::path& other) {
      return other != file && std::regex_search(slurp(other), use);
    });
    EXPECT_TRUE(used && (is_python(file) || is_shell(file)))
        << file << " is neither a script (--help) nor used by one";
  }
}

// The stand-ins catch what they are there for: a script that imports torch, or builds, before
// it parses its arguments fails the check.
TEST_F(GpuScripts, AScriptThatImportsTorchOrBuildsFirstFails) {
  std::ofstream(dir_ / "early_torch.py")
      << "\"\"\"x.\n    python3 early_torch.py\"\"\"\nimport argparse\nimport torch\n\n"
         "if __name__ == \"__main__\":\n    argparse.ArgumentParser().parse_args()\n";
  std::ofstream(dir_ / "early_make.sh")
      << "#!/usr/bin/env bash\n# x.\n#   early_make.sh\nmake -j2 all\n"
         "case ${1:-} in -h | --help) echo early_make.sh; exit 0 ;; esac\n";
  std::ofstream(dir_ / "fine.sh")
      << "#!/usr/bin/env bash\n# x.\n#   fine.sh\n"
         "case ${1:-} in -h | --help) echo fine.sh; exit 0 ;; esac\nmake -j2 all\n";
  if (has_python_) {
    EXPECT_NE(help_problem(dir_ / "early_torch.py"), "");
  }
  EXPECT_NE(help_problem(dir_ / "early_make.sh"), "");
  EXPECT_EQ(help_problem(dir_ / "fine.sh"), "");
}

}  // namespace
}  // namespace collreplay::cli_test
