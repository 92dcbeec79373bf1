// What the emulated-cluster tests share: the scripts' paths, a per-test cluster state folder and
// name prefix (so a user's own cluster is never touched), and the skip rules (root, ip netns).
#pragma once
#include <unistd.h>

#include <string>

#include "tests/support/subprocess.hpp"

namespace collreplay::emulated_test {

using cli_test::Outcome;
namespace fs = std::filesystem;

// The repository root: the working directory when run from it (make test), else two levels above
// build/bin.
inline fs::path repo_dir() {
  if (fs::exists("sweeps/emulate/cluster")) return fs::current_path();
  return cli_test::bin_dir().parent_path().parent_path();
}

inline std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

// Namespaces of ours with this prefix still listed by `ip netns list`.
inline std::string leftover_namespaces(const std::string& prefix) {
  std::string out;
  FILE* pipe = popen("ip netns list 2>/dev/null", "r");
  if (!pipe) return "?";
  char line[256];
  while (fgets(line, sizeof line, pipe)) {
    const std::string name(line);
    if (name.starts_with(prefix)) out += name;
  }
  pclose(pipe);
  return out;
}

class EmulatedTest : public cli_test::ScratchDirTest {
 protected:
  static constexpr const char* kPrefix = "crtest";

  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root: network namespaces";
    if (std::system("ip netns list >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "'ip netns' is not usable here";
    cli_test::ScratchDirTest::SetUp();
    state_ = dir_ / "state";
  }
  void TearDown() override {
    if (!state_.empty()) run(cluster("down"));
    cli_test::ScratchDirTest::TearDown();
  }

  // "sweeps/emulate/cluster VERB --state S --prefix crtest ARGS"
  std::string cluster(const std::string& verb, const std::string& args = "") const {
    return quoted(repo_dir() / "sweeps/emulate/cluster") + " " + verb + " --state " +
           quoted(state_) + " --prefix " + kPrefix + (args.empty() ? "" : " " + args);
  }
  std::string sweep(const std::string& args) const {
    return "cd " + quoted(repo_dir()) + " && sweeps/sweep " + args;
  }
  std::string bin(const std::string& name) const { return quoted(cli_test::bin_dir() / name); }

  fs::path state_;
};

}  // namespace collreplay::emulated_test
