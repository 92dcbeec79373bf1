// A real Slurm on the emulated cluster: `cluster up --slurm`, then the node-series batch script
// through `sbatch --wait`, one job step per node count via srun --mpi=pmix, a manifest in place,
// a re-submitted job skipping the cells already done, and submit-series chaining one job per
// node count.
#include <nlohmann/json.hpp>

#include <vector>

#include "tests/emulated/emulated.hpp"

namespace collreplay::emulated_test {
namespace {

using nlohmann::json;

class SlurmTest : public EmulatedTest {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    if (IsSkipped()) return;
    if (std::system("command -v slurmd >/dev/null && command -v munged >/dev/null") != 0)
      GTEST_SKIP() << "Debian's slurm-wlm and munge are not installed (make deps)";
  }

  // sbatch --wait of node-series.sbatch from the repository root, inside node 0.
  Outcome submit() {
    return run("cd " + quoted(repo_dir()) + " && NODES='1 2' EXE=" + bin("all_gather_perf") +
               " BACKEND=mpi OUT=" + quoted(dir_ / "out") +
               " REPLAY_ARGS='-b 64K -e 64K -n 2 -w 1'" + " TIMEOUT_S=120 " +
               cluster("run", "-- sbatch --wait -N 2 -o " + quoted(dir_ / "job-%j.log") +
                                  " sweeps/slurm/node-series.sbatch"));
  }
};

TEST_F(SlurmTest, BatchScriptsRunEveryNodeCountAndResume) {
  const Outcome up = run(cluster("up", "--nodes 2 --slurm"));
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_NE(up.out.find("slurmctld"), std::string::npos) << up.out;

  const Outcome first = submit();
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const json manifest = json::parse(cli_test::slurp(dir_ / "out/manifest.json"));
  ASSERT_EQ(manifest["cells"].size(), 2u) << manifest.dump(1);
  for (const json& cell : manifest["cells"]) {
    EXPECT_EQ(cell["status"], "done") << cell.dump();
    EXPECT_EQ(cell["launcher"]["kind"], "slurm") << cell.dump();
    EXPECT_FALSE(cell["launcher"]["slurm_job_id"].get<std::string>().empty());
    EXPECT_TRUE(cell["launcher"]["slurm_step_id"].is_number()) << cell.dump();
    // The step's log is named after its job and step (%j.%s).
    const std::string log = cell["log"];
    EXPECT_NE(log.find("." + cell["launcher"]["slurm_job_id"].get<std::string>() + "."),
              std::string::npos)
        << log;
  }
  // The two-node cell ran on both emulated nodes, and its records name the job and step.
  const std::string two = cli_test::slurp(dir_ / "out/unshaped_n2_r1.jsonl");
  EXPECT_NE(two.find("crtest1"), std::string::npos) << two;
  const json record = json::parse(two.substr(0, two.find('\n')));
  EXPECT_EQ(record["run"]["launcher"]["kind"], "srun") << record["run"].dump();
  EXPECT_EQ(record["run"]["launcher"]["slurm_job_id"],
            manifest["cells"][1]["launcher"]["slurm_job_id"]);
  EXPECT_EQ(record["run"]["launcher"]["slurm_step_id"],
            std::to_string(manifest["cells"][1]["launcher"]["slurm_step_id"].get<int>()));

  const Outcome again = submit();
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  std::string job_logs;
  for (const auto& entry : fs::directory_iterator(dir_))
    if (entry.path().filename().string().starts_with("job-"))
      job_logs += cli_test::slurp(entry.path());
  EXPECT_NE(job_logs.find("done before, skipped"), std::string::npos) << job_logs;

  // submit-series: one job per node count, the second waiting for the first; a job that waits
  // for the last one returns when both are over.
  const Outcome chained = run(
      "cd " + quoted(repo_dir()) + " && NODES='1 2' EXE=" + bin("all_gather_perf") +
      " BACKEND=mpi OUT=" + quoted(dir_ / "series") + " REPLAY_ARGS='-b 64K -e 64K -n 2 -w 1' " +
      cluster("run", "-- sweeps/slurm/submit-series"));
  ASSERT_EQ(chained.exit_code, 0) << chained.err;
  const std::string last_job =
      chained.out.substr(chained.out.rfind('\n', chained.out.size() - 2) + 1);
  const Outcome waited =
      run(cluster("run", "-- sbatch --wait -N 1 -o /dev/null --dependency=afterany:" +
                             last_job.substr(0, last_job.find('\n')) + " --wrap true"));
  ASSERT_EQ(waited.exit_code, 0) << waited.err;
  const json series = json::parse(cli_test::slurp(dir_ / "series/manifest.json"));
  ASSERT_EQ(series["cells"].size(), 2u) << series.dump(1);
  EXPECT_NE(series["cells"][0]["launcher"]["slurm_job_id"],
            series["cells"][1]["launcher"]["slurm_job_id"]);
  for (const json& cell : series["cells"]) EXPECT_EQ(cell["status"], "done") << cell.dump();

  // Teardown ends exactly the daemons `up` recorded.
  std::vector<int> daemons;
  std::ifstream pids(state_ / "pids");
  for (std::string label; pids >> label;) daemons.push_back(0), pids >> daemons.back();
  EXPECT_GE(daemons.size(), 4u);  // munged, slurmctld, 2 slurmd
  ASSERT_EQ(run(cluster("down")).exit_code, 0);
  EXPECT_EQ(leftover_namespaces(kPrefix), "");
  for (int pid : daemons) EXPECT_FALSE(fs::exists("/proc/" + std::to_string(pid))) << pid;
}

}  // namespace
}  // namespace collreplay::emulated_test
