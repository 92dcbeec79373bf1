// sweeps/sweep on the emulated cluster: a manifest per sweep, resume (done cells skipped, failed
// ones retried once), a failing cell never stops the others, bad input exits 2 before anything.
#include <algorithm>
#include <chrono>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/emulated/emulated.hpp"

namespace collreplay::emulated_test {
namespace {

using nlohmann::json;

class SweepTest : public EmulatedTest {
 protected:
  json manifest() const { return json::parse(cli_test::slurp(dir_ / "out/manifest.json")); }
  json cell(const std::string& id) const {
    const json all = manifest();
    for (const json& c : all["cells"])
      if (c["id"] == id) return c;
    return nullptr;
  }
  static int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
      ++n;
    return n;
  }
};

TEST_F(SweepTest, TwoCellsRunThenResumeSkipsThem) {
  const std::string args = "--emulate --nodes 1,2 --fabric unshaped --exe " +
                           bin("all_gather_perf") + " --backend mpi --timeout 120 --out " +
                           quoted(dir_ / "out") + " -- -b 64K -e 64K -n 2 -w 1";
  const Outcome first = run(sweep(args));
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("cell 1/2"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("remaining"), std::string::npos) << first.out;
  for (const char* id : {"unshaped_n1_r1", "unshaped_n2_r1"}) {
    EXPECT_EQ(cell(id)["status"], "done") << id;
    EXPECT_EQ(cell(id)["attempts"], 1) << id;
    EXPECT_TRUE(fs::exists(cell(id)["log"].get<std::string>())) << id;
    EXPECT_GT(fs::file_size(dir_ / "out" / (std::string(id) + ".jsonl")), 0u) << id;
  }
  EXPECT_EQ(manifest()["matrix"]["nodes"], json({1, 2}));
  const auto written = fs::last_write_time(dir_ / "out/unshaped_n2_r1.jsonl");

  const Outcome second = run(sweep(args));
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_EQ(count(second.out, "done before, skipped"), 2) << second.out;
  EXPECT_EQ(fs::last_write_time(dir_ / "out/unshaped_n2_r1.jsonl"), written);
  EXPECT_EQ(cell("unshaped_n2_r1")["attempts"], 1);
  EXPECT_EQ(leftover_namespaces("crs"), "");
}

TEST_F(SweepTest, FailingCellIsRetriedOnceAndNeverStopsTheOthers) {
  // A stand-in executable that fails on one node and writes a record on two.
  const fs::path exe = dir_ / "fails-on-one-node";
  cli_test::write_executable(
      exe,
      "#!/bin/sh\nout=\nwhile [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n"
      "[ \"$OMPI_COMM_WORLD_SIZE\" = 2 ] || exit 3\n"
      "[ \"$OMPI_COMM_WORLD_RANK\" = 0 ] && echo '{\"ok\": 1}' > \"$out\"\nexit 0\n");
  const std::string args =
      "--emulate --nodes 1,2 --exe " + quoted(exe) + " --timeout 60 --out " + quoted(dir_ / "out");
  const Outcome first = run(sweep(args));
  EXPECT_EQ(first.exit_code, 1) << first.out << first.err;
  EXPECT_EQ(cell("unshaped_n1_r1")["status"], "failed");
  EXPECT_EQ(cell("unshaped_n1_r1")["exit_code"], 3);
  EXPECT_EQ(cell("unshaped_n2_r1")["status"], "done");

  const Outcome second = run(sweep(args));
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_EQ(cell("unshaped_n1_r1")["attempts"], 2);
  EXPECT_EQ(count(second.out, "done before, skipped"), 1) << second.out;

  const Outcome third = run(sweep(args));
  EXPECT_EQ(third.exit_code, 1);
  EXPECT_EQ(cell("unshaped_n1_r1")["attempts"], 2) << "retried only once";
  EXPECT_NE(third.out.find("not retried"), std::string::npos) << third.out;
  EXPECT_NE(third.out.find("failed"), std::string::npos) << "the summary table names it";
}

// The sweep bench/README.md and sweeps/README.md document: a slower fabric must show lower bus
// bandwidth and lower headroom at every multi-node count, headroom below 2 nodes' at 4 and 8,
// measured by replay with modeled compute; a second identical run resumes in seconds.
TEST_F(SweepTest, SlowerFabricShowsLowerBusbwAndHeadroomAtEveryNodeCount) {
  const std::string args =
      "--emulate --nodes 1,2,4,8 --fabric unshaped,eth-1g --backend mpi --model qwen2.5-0.5b "
      "--layers 4 --compute model:h100 --out " +
      quoted(dir_ / "out");
  const Outcome first = run(sweep(args));
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  struct Cell {
    double busbw_GBps = 0;   // median over the step's all-gathers
    double headroom_ms = 0;  // median over the decoder layers
  };
  const auto read_cell = [&](const std::string& fabric, int nodes) {
    std::vector<double> busbw, headroom;
    std::istringstream lines(cli_test::slurp(
        dir_ / "out" / (fabric + "_n" + std::to_string(nodes) + "_r1_qwen2.5-0.5b_fsdp1.jsonl")));
    for (std::string line; std::getline(lines, line);) {
      const json r = json::parse(line);
      const std::string record = r.value("record", "");
      if (record == "op" && r.value("kind", "") == "all_gather")
        busbw.push_back(r.value("busbw_GBps", 0.0));
      if (record == "unit" && r.value("unit", "").starts_with("layers."))
        headroom.push_back(r.value("headroom_ms", 0.0));
      if (record == "step") {
        EXPECT_EQ(r.value("nodes", 0), nodes);
        EXPECT_EQ(r.value("/run/fabric"_json_pointer, ""), fabric);
        EXPECT_EQ(r.value("/run/emulated"_json_pointer, false), true);
      }
    }
    const auto median = [](std::vector<double> v) {
      if (v.empty()) return 0.0;
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      return v[v.size() / 2];
    };
    EXPECT_FALSE(headroom.empty()) << fabric << " at " << nodes << " nodes: no layer records";
    return Cell{median(busbw), median(headroom)};
  };
  // Against 2 nodes, where a ring all-gather moves half the bytes each rank moves at 4 nodes
  // (3/4) and 8 (7/8): 4 against 8 nodes, 17% apart, came out 2% the wrong way once on a loaded
  // 2-core host.
  double two_nodes_headroom_ms = 0;
  for (int nodes : {2, 4, 8}) {
    const Cell fast = read_cell("unshaped", nodes), slow = read_cell("eth-1g", nodes);
    EXPECT_GT(slow.busbw_GBps, 0) << nodes << " nodes: no all-gather records";
    EXPECT_LT(slow.busbw_GBps, fast.busbw_GBps) << nodes << " nodes";
    EXPECT_LT(slow.headroom_ms, fast.headroom_ms) << nodes << " nodes";
    if (nodes == 2)
      two_nodes_headroom_ms = slow.headroom_ms;
    else
      EXPECT_LT(slow.headroom_ms, two_nodes_headroom_ms) << nodes << " nodes";
  }
  const auto start = std::chrono::steady_clock::now();
  const Outcome second = run(sweep(args));
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_EQ(count(second.out, "done before, skipped"), 8) << second.out;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(leftover_namespaces("crs"), "");
}

TEST_F(SweepTest, BadInputExitsTwoWithOneLineAndWritesNothing) {
  std::ofstream(dir_ / "bad-hosts") << "node1 slots=2\nnode2 slots=two\n";
  const std::string perf = " --exe " + bin("all_gather_perf");
  const std::string out = " --out " + quoted(dir_ / "out");
  for (const std::string& args :
       {"--emulate --fabric no-such-fabric" + perf + out, "--emulate --nodes 1,32" + perf + out,
        "--hostfile " + quoted(dir_ / "bad-hosts") + perf + out,
        "--hostfile " + quoted(dir_ / "missing-hosts") + perf + out,
        "--emulate --nodes 1" + perf + " --out /proc/collreplay-unwritable",
        "--emulate --nodes one" + perf + out, "--nodes 1" + perf + out}) {
    const Outcome bad = run("unset SLURM_JOB_ID; " + sweep(args));
    EXPECT_EQ(bad.exit_code, 2) << args << "\n" << bad.out << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << args << ": " << bad.err;
    EXPECT_FALSE(fs::exists(dir_ / "out/manifest.json")) << args;
  }
  EXPECT_EQ(leftover_namespaces("crs"), "");
}

}  // namespace
}  // namespace collreplay::emulated_test
