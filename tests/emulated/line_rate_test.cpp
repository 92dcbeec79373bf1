// An emulated all_gather sweep draws no bus bandwidth its profile cannot carry: with one rank
// per node nccl-tests' busbw of an all_gather is at most what one node's link moves, the
// profile's node_gbit_s / 8 (bench/app/run/line_rate.hpp derives it), so every point above that
// must be flagged "above_line_rate" in its record, and the sizes the shaping must hold (many times
// its bucket) must not be above it at all. Each sweep brings its own cluster up and down, at the
// sweep's default dilation (500 Mbit/s per node on this host).
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/emulated/emulated.hpp"

namespace collreplay::emulated_test {
namespace {

using nlohmann::json;

class LineRateSweep : public EmulatedTest {
 protected:
  // The cluster prefix the sweep used, from its cluster log ("cluster: 2 nodes (crs123n0..").
  std::string sweep_prefix(const std::string& fabric) const {
    const std::string log = cli_test::slurp(dir_ / "out/logs" / ("cluster-" + fabric + "-n2.log"));
    const std::size_t open = log.find("nodes (");
    if (open == std::string::npos) return "";
    const std::size_t start = open + 7, end = log.find("0..", start);
    return end == std::string::npos ? "" : log.substr(start, end - start);
  }

  // Runs the sweep of `fabric` on 2 nodes at its default dilation and checks every record
  // against `node_GBps`; the table notes the flagged ones.
  void sweep_within_line_rate(const std::string& fabric, double node_GBps, double dilation) {
    const Outcome swept = run(sweep("--emulate --nodes 2 --fabric " + fabric + " --exe " +
                                    bin("all_gather_perf") + " --backend mpi --timeout 120 --out " +
                                    quoted(dir_ / "out") + " -- -b 8K -e 4M -f 8 -n 4 -w 1"));
    ASSERT_EQ(swept.exit_code, 0) << swept.out << swept.err;
    std::ifstream in(dir_ / "out" / (fabric + "_n2_r1.jsonl"));
    int records = 0, flagged = 0;
    for (std::string line; std::getline(in, line);) {
      const json r = json::parse(line);
      if (!r.contains("busbw_GBps")) continue;  // counters
      ++records;
      const double busbw = r["busbw_GBps"].get<double>();
      const auto bytes = r["bytes"].get<std::uint64_t>();
      ASSERT_TRUE(r.contains("above_line_rate")) << line;
      EXPECT_EQ(r["run"]["fabric"], fabric);
      EXPECT_EQ(r["run"]["emulated"], true);
      EXPECT_DOUBLE_EQ(r["line_rate_GBps"].get<double>(), node_GBps);
      EXPECT_EQ(r["above_line_rate"].get<bool>(), busbw > node_GBps)
          << bytes << " B: busbw " << busbw << " GB/s against " << node_GBps;
      flagged += r["above_line_rate"].get<bool>() ? 1 : 0;
      // From 1 MiB a node receives 512 KiB, 64 times the shaper's bucket: held to the rate.
      if (bytes >= (1u << 20)) {
        EXPECT_LE(busbw, node_GBps) << bytes << " B passed the shaping faster than " << fabric;
      }
    }
    EXPECT_EQ(records, 8) << "4 sizes, out of place and in place";
    const std::string table = cli_test::slurp(dir_ / "out/logs" / (fabric + "_n2_r1.log"));
    EXPECT_EQ(table.find("above_line_rate") != std::string::npos, flagged > 0) << table;
    const json manifest = json::parse(cli_test::slurp(dir_ / "out/manifest.json"));
    EXPECT_EQ(manifest["dilation"].get<double>(), dilation);
    const std::string prefix = sweep_prefix(fabric);
    ASSERT_FALSE(prefix.empty()) << cli_test::slurp(dir_ / "out/logs" /
                                                    ("cluster-" + fabric + "-n2.log"));
    EXPECT_EQ(leftover_namespaces(prefix), "");
    EXPECT_FALSE(fs::exists("/run/collreplay-clusters/" + prefix + ".env"));
  }
};

TEST_F(LineRateSweep, AllGatherOnEth100gIsWithinItsLineRateOrFlagged) {
  sweep_within_line_rate("eth-100g", 12.5, 200);
}

TEST_F(LineRateSweep, AllGatherOnIbNdrIsWithinItsLineRateOrFlagged) {
  sweep_within_line_rate("ib-ndr-8x400", 400, 6400);
}

}  // namespace
}  // namespace collreplay::emulated_test
