// A program started on a node of an emulated cluster takes the cluster's fabric and dilation:
// a replay without --fabric, --emulated and --dilate is recorded and dilated as the sweep's
// (which passes them) is, never as a real undilated run; a flag that disagrees with the cluster
// exits 2 with one line, in --dry-run as in a run; the cluster's registry entry lives as long as
// its namespaces.
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/emulated/emulated.hpp"

namespace collreplay::emulated_test {
namespace {

using nlohmann::json;

constexpr const char* kRegistryEntry = "/run/collreplay-clusters/crtest.env";

class ClusterFabric : public EmulatedTest {
 protected:
  // replay-tiny, one decoder layer, one step per pass: compute modeled (timed waits) at H100.
  std::string replay(const std::string& out, const std::string& flags = "") const {
    return cluster("run",
                   "-- mpirun -np 2 " + bin("replay") + " --backend mpi --model " +
                       quoted(repo_dir() / "sweeps/models/replay-tiny.json") +
                       " --layers 1 --seq 64 --steps 1 --warmup 0 --compute model:h100 --out " +
                       quoted(dir_ / out) + (flags.empty() ? "" : " " + flags));
  }
  json step_record(const std::string& out) const {
    std::ifstream in(dir_ / out);
    for (std::string line; std::getline(in, line);) {
      const json r = json::parse(line);
      if (r.value("record", "") == "step") return r;
    }
    return nullptr;
  }
};

TEST_F(ClusterFabric, AReplayWithoutFlagsIsDilatedAndRecordedAsTheSweepsIs) {
  ASSERT_EQ(run(cluster("up", "--nodes 2 --fabric eth-100g --dilate 200")).exit_code, 0);
  ASSERT_TRUE(fs::is_symlink(kRegistryEntry));
  const Outcome bare = run(replay("bare.jsonl"));
  ASSERT_EQ(bare.exit_code, 0) << bare.out << bare.err;
  EXPECT_NE(bare.out.find("fabric eth-100g (emulated) on 2 node(s), dilation 200"),
            std::string::npos)
      << bare.out;
  const Outcome flagged = run(replay("flagged.jsonl", "--fabric eth-100g --emulated --dilate 200"));
  ASSERT_EQ(flagged.exit_code, 0) << flagged.out << flagged.err;
  const json a = step_record("bare.jsonl"), b = step_record("flagged.jsonl");
  ASSERT_FALSE(a.is_null());
  ASSERT_FALSE(b.is_null());
  for (const char* field : {"fabric", "emulated", "dilation"})
    EXPECT_EQ(a["run"][field], b["run"][field]) << field;
  EXPECT_EQ(a["run"]["fabric"], "eth-100g");
  EXPECT_EQ(a["run"]["emulated"], true);
  EXPECT_EQ(a["run"]["dilation"], 200.0);
  // The link runs at eth-100g / 200 and modeled compute waits 200 times longer; both runs report
  // them divided by 200 (an undilated record of the same run reads its communication 200 times
  // too slow). A 2x margin for a loaded host.
  for (const char* field : {"comm_ms", "compute_ms"}) {
    const double bare_ms = a[field].get<double>(), flagged_ms = b[field].get<double>();
    EXPECT_GT(bare_ms, 0) << field;
    EXPECT_LT(bare_ms, 2 * flagged_ms)
        << field << ": bare " << bare_ms << ", flagged " << flagged_ms;
    EXPECT_GT(bare_ms, flagged_ms / 2)
        << field << ": bare " << bare_ms << ", flagged " << flagged_ms;
  }
}

TEST_F(ClusterFabric, FlagsThatDisagreeWithTheClusterExitTwoWithOneLine) {
  ASSERT_EQ(run(cluster("up", "--nodes 2 --fabric eth-10g --dilate 10")).exit_code, 0);
  const std::string perf = bin("all_gather_perf") +
                           " --backend mpi -b 64K -e 64K -n 1 -w 0 --out " +
                           quoted(dir_ / "perf.jsonl");
  const std::string dry = bin("replay") + " --dry-run --model " +
                          quoted(repo_dir() / "sweeps/models/replay-tiny.json") + " --world 2";
  for (const std::string& command :
       {perf + " --dilate 1", perf + " --fabric eth-100g", perf + " --fabric real",
        dry + " --dilate 20", dry + " --fabric unshaped"}) {
    const Outcome refused = run(cluster("run", "-- " + command));
    EXPECT_EQ(refused.exit_code, 2) << command << "\n" << refused.out << refused.err;
    EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1)
        << command << ": " << refused.err;
    EXPECT_NE(refused.err.find("crtest0 of the emulated cluster crtest"), std::string::npos)
        << refused.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "perf.jsonl"));
  // The cluster's own values are accepted, and a perf run without them records them.
  const Outcome agreed =
      run(cluster("run", "-- mpirun -np 2 " + perf + " --fabric eth-10g --dilate 10"));
  ASSERT_EQ(agreed.exit_code, 0) << agreed.out << agreed.err;
  std::ifstream in(dir_ / "perf.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  const json record = json::parse(line);
  EXPECT_EQ(record["run"]["fabric"], "eth-10g");
  EXPECT_EQ(record["run"]["dilation"], 10.0);
  EXPECT_TRUE(record.contains("above_line_rate")) << line;
}

TEST_F(ClusterFabric, TheRegistryEntryGoesWithTheCluster) {
  ASSERT_EQ(run(cluster("up", "--nodes 1 --fabric eth-1g --dilate 2")).exit_code, 0);
  ASSERT_TRUE(fs::is_symlink(kRegistryEntry));
  EXPECT_EQ(fs::read_symlink(kRegistryEntry), state_ / "cluster.env");
  const std::string state = cli_test::slurp(state_ / "cluster.env");
  EXPECT_NE(state.find("CL_FABRIC=eth-1g\n"), std::string::npos) << state;
  EXPECT_NE(state.find("CL_DILATE=2\n"), std::string::npos) << state;
  // The root namespace is no node: a program there is not on the cluster.
  const Outcome outside =
      run(bin("all_gather_perf") + " --backend mpi -b 1K -e 1K -n 1 -w 0 --dilate 3");
  EXPECT_EQ(outside.exit_code, 0) << outside.err;
  ASSERT_EQ(run(cluster("down")).exit_code, 0);
  EXPECT_FALSE(fs::exists(kRegistryEntry));
  EXPECT_FALSE(fs::is_symlink(kRegistryEntry));
  EXPECT_EQ(leftover_namespaces(kPrefix), "");
}

}  // namespace
}  // namespace collreplay::emulated_test
