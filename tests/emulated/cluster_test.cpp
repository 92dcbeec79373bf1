// sweeps/emulate/cluster: namespaces come and go without leftovers, mpirun sees one host per
// node, tbf shaping slows a shaped profile, bad input exits 2 with nothing built.
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "tests/emulated/emulated.hpp"

namespace collreplay::emulated_test {
namespace {

class ClusterTest : public EmulatedTest {};

TEST_F(ClusterTest, UpThenDownLeavesNoNamespaceNoState) {
  const Outcome up = run(cluster("up", "--nodes 3 --fabric eth-10g --dilate 10"));
  ASSERT_EQ(up.exit_code, 0) << up.err;
  EXPECT_NE(up.out.find("tbf"), std::string::npos) << up.out;
  EXPECT_NE(up.out.find("latency unavailable"), std::string::npos) << up.out;  // no netem here
  const std::string listed = leftover_namespaces(kPrefix);
  for (const char* name : {"crtest0", "crtest1", "crtest2", "crtest-fabric"})
    EXPECT_NE(listed.find(name), std::string::npos) << listed;
  EXPECT_TRUE(fs::exists(state_ / "hostfile"));

  const Outcome down = run(cluster("down"));
  ASSERT_EQ(down.exit_code, 0) << down.err;
  EXPECT_EQ(leftover_namespaces(kPrefix), "");
  EXPECT_FALSE(fs::exists(state_));
}

TEST_F(ClusterTest, MpirunOnTwoNodesSeesTwoHostnames) {
  ASSERT_EQ(run(cluster("up", "--nodes 2")).exit_code, 0);
  const Outcome hosts = run(cluster("run", "-- mpirun -np 2 hostname"));
  ASSERT_EQ(hosts.exit_code, 0) << hosts.err;
  std::set<std::string> names;
  std::istringstream lines(hosts.out);
  for (std::string line; std::getline(lines, line);) names.insert(line);
  EXPECT_EQ(names, (std::set<std::string>{"crtest0", "crtest1"}));
}

// The median time of the 2-node all-gather in a perf JSONL file.
double all_gather_time_us(const fs::path& path) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const auto record = nlohmann::json::parse(line);
    if (record.value("record", "perf") == "perf" && record.contains("time_us"))
      return record["time_us"].get<double>();
  }
  return -1;
}

TEST_F(ClusterTest, ShapedProfileIsSlowerThanUnshaped) {
  // eth-1g at dilation 10 is 100 Mbit/s per node: a 2 MiB all-gather moves 1 MiB per node, ~80 ms;
  // unshaped it takes a few ms even on a loaded host. The assertion leaves a 3x margin.
  double time_us[2] = {0, 0};
  const char* fabrics[2] = {"unshaped", "eth-1g --dilate 10"};
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(run(cluster("up", std::string("--nodes 2 --fabric ") + fabrics[i])).exit_code, 0);
    const fs::path out = dir_ / ("ag" + std::to_string(i) + ".jsonl");
    const Outcome perf =
        run(cluster("run", "-- mpirun -np 2 " + bin("all_gather_perf") +
                               " --backend mpi -b 2M -e 2M -n 5 -w 1 --out " + quoted(out)));
    ASSERT_EQ(perf.exit_code, 0) << perf.err;
    time_us[i] = all_gather_time_us(out);
    ASSERT_GT(time_us[i], 0) << cli_test::slurp(out);
    ASSERT_EQ(run(cluster("down")).exit_code, 0);
  }
  EXPECT_GT(time_us[1], 3 * time_us[0])
      << "unshaped " << time_us[0] << " us, shaped " << time_us[1] << " us";
}

TEST_F(ClusterTest, BadInputExitsTwoWithOneLineAndBuildsNothing) {
  for (const char* args :
       {"--nodes 2 --fabric no-such-fabric", "--nodes 17", "--nodes 0", "--nodes 2 --dilate -1"}) {
    const Outcome up = run(cluster("up", std::string(args)));
    EXPECT_EQ(up.exit_code, 2) << args;
    EXPECT_EQ(std::count(up.err.begin(), up.err.end(), '\n'), 1) << args << ": " << up.err;
    EXPECT_EQ(leftover_namespaces(kPrefix), "") << args;
    EXPECT_FALSE(fs::exists(state_ / "cluster.env")) << args;
  }
  const Outcome no_cluster = run(cluster("run", "-- true"));
  EXPECT_EQ(no_cluster.exit_code, 2);
}

TEST_F(ClusterTest, FailedUpTearsDownWhatItBuilt) {
  // A profile whose rate tc refuses makes `up` fail after the namespaces exist.
  std::ofstream(dir_ / "fabrics.tsv") << "name node_gbit_s latency_us links description\n"
                                         "too-slow 0.0000001 0 1 below what tc takes\n";
  const Outcome up = run("FABRICS_FILE=" + quoted(dir_ / "fabrics.tsv") + " " +
                         cluster("up", "--nodes 3 --fabric too-slow"));
  EXPECT_EQ(up.exit_code, 1) << up.err;
  EXPECT_NE(up.err.find("tearing down"), std::string::npos) << up.err;
  EXPECT_EQ(leftover_namespaces(kPrefix), "");
  EXPECT_FALSE(fs::exists(state_));
}

TEST_F(ClusterTest, RefusesAStateFolderItDidNotMake) {
  std::ofstream(dir_ / "keep-me") << "a user's file\n";
  const Outcome up = run(quoted(repo_dir() / "sweeps/emulate/cluster") + " up --nodes 1 --prefix " +
                         kPrefix + " --state " + quoted(dir_));
  EXPECT_EQ(up.exit_code, 2) << up.err;
  EXPECT_EQ(leftover_namespaces(kPrefix), "");
  run(quoted(repo_dir() / "sweeps/emulate/cluster") + " down --prefix " + kPrefix + " --state " +
      quoted(dir_));
  EXPECT_TRUE(fs::exists(dir_ / "keep-me")) << "down removed a folder that up did not make";
}

}  // namespace
}  // namespace collreplay::emulated_test
