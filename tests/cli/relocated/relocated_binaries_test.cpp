// The programs find their data (fabric profiles, the measured intra-node sweep) by one rule
// (common/data_files.hpp) wherever they are run from: copied into a folder outside the checkout,
// laid out as an install prefix (PREFIX/bin + PREFIX/share/collreplay), or pointed at a data
// folder by COLLREPLAY_DATA; run from any working directory.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

// replay --dry-run, project and advise: each needs sweeps/fabrics.tsv, and project/advise with
// more than one GPU a node the measured NVLink sweep too.
constexpr const char* kDryRunWithoutFabric = "replay --dry-run --model qwen2.5-0.5b --world 2";
const std::string kDryRun = std::string(kDryRunWithoutFabric) + " --fabric eth-10g";
constexpr const char* kProject =
    "project --model qwen2.5-0.5b --micro-batch 1 --seq 1024 --gpus-per-node 2 --fabric eth-10g "
    "--compute model:h100 --nodes 1,2,4";
constexpr const char* kAdvise =
    "advise --model qwen2.5-0.5b --layers 4 --micro-batch 1 --seq 4096 --gpus-per-node 2 "
    "--nodes 2 --fabric eth-10g --compute model:h100";

class RelocatedBinaries : public ScratchDirTest {
 protected:
  // The three programs copied into `dir` (a folder outside the checkout).
  void copy_programs(const fs::path& dir) {
    fs::create_directories(dir);
    for (const char* name : {"replay", "project", "advise"})
      fs::copy_file(bin_dir() / name, dir / name);
  }
  // `program_line` run from an unrelated working directory with the programs in `dir`.
  Outcome run_from(const fs::path& dir, const std::string& program_line,
                   const std::string& env = "") {
    fs::create_directories(dir_ / "elsewhere");
    return run("cd " + (dir_ / "elsewhere").string() + " && " + env + (env.empty() ? "" : " ") +
               (dir / program_line).string());
  }
  std::string fabrics_with(const std::string& extra_profile) {
    return slurp(bin_dir() / "../../sweeps/fabrics.tsv") + extra_profile +
           " 7 20 1 only in this copy\n";
  }
};

TEST_F(RelocatedBinaries, CopiedOutsideTheCheckoutTheyStillFindTheirData) {
  const fs::path copy = dir_ / "copied";
  copy_programs(copy);
  for (const std::string& line : {kDryRun, std::string(kProject), std::string(kAdvise)}) {
    const Outcome o = run_from(copy, line);
    EXPECT_EQ(o.exit_code, 0) << line << "\n" << o.err;
    EXPECT_EQ(o.err.find("cannot"), std::string::npos) << line << "\n" << o.err;
  }
  EXPECT_NE(run_from(copy, kProject).out.find("tipping point"), std::string::npos);
}

TEST_F(RelocatedBinaries, AnInstallPrefixUsesItsOwnShareFolder) {
  // PREFIX/share/collreplay holds a fabric profile the checkout does not have: found there.
  const fs::path prefix = dir_ / "prefix";
  copy_programs(prefix / "bin");
  fs::create_directories(prefix / "share/collreplay/sweeps");
  std::ofstream(prefix / "share/collreplay/sweeps/fabrics.tsv") << fabrics_with("eth-7g");
  const Outcome o = run_from(prefix / "bin", std::string(kDryRunWithoutFabric) + " --fabric eth-7g");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  // The checkout's copy has no such profile: the plain build says so, naming the file it read.
  const Outcome plain = run_from(bin_dir(), std::string(kDryRunWithoutFabric) + " --fabric eth-7g");
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_NE(plain.err.find("unknown --fabric 'eth-7g'"), std::string::npos) << plain.err;
}

TEST_F(RelocatedBinaries, CollreplayDataNamesTheDataFolder) {
  fs::create_directories(dir_ / "data/sweeps");
  std::ofstream(dir_ / "data/sweeps/fabrics.tsv") << fabrics_with("eth-3g");
  const Outcome o = run_from(bin_dir(), std::string(kDryRunWithoutFabric) + " --fabric eth-3g",
                             "COLLREPLAY_DATA=" + (dir_ / "data").string());
  EXPECT_EQ(o.exit_code, 0) << o.err;
}

// The git revision in a run's record is read at run time from the build tree's gen/git_revision
// (an install prefix's share/collreplay/gen/git_revision), so a commit rebuilds nothing.
TEST_F(RelocatedBinaries, RunsRecordTheRevisionOfTheirBuild) {
  const auto revision_of_run = [&](const fs::path& dir) {
    const fs::path out = dir_ / "r.jsonl";
    fs::remove(out);
    const Outcome o = run(mpirun_command() + " -np 1 " + (dir / "replay").string() +
                          " --backend mpi --model qwen2.5-0.5b --layers 1 --seq 32" +
                          " --compute model:a100@0.001 --steps 1 --warmup 0 --out " +
                          out.string());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    for (const nlohmann::json& record : read_jsonl(out))
      if (record.contains("run")) return record["run"]["git_revision"].get<std::string>();
    return std::string("none recorded");
  };
  std::string built = slurp(bin_dir() / "../gen/git_revision");
  built.erase(built.find_last_not_of('\n') + 1);
  ASSERT_FALSE(built.empty());
  EXPECT_EQ(revision_of_run(bin_dir()), built);
  const fs::path prefix = dir_ / "prefix";
  copy_programs(prefix / "bin");
  fs::create_directories(prefix / "share/collreplay/gen");
  std::ofstream(prefix / "share/collreplay/gen/git_revision") << "0123456789ab\n";
  EXPECT_EQ(revision_of_run(prefix / "bin"), "0123456789ab");
}

}  // namespace
}  // namespace collreplay::cli_test
