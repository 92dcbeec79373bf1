// compare on a real regression: the same all-gather sweep on a 2-node emulated cluster twice,
// the second time with each node's link rate-limited by tc tbf, and compare must flag exactly
// the sizes the shaping slowed.
//
// Which sizes those are is known in advance. tbf lets a burst of 10 ms at the rate through
// untouched (sweeps/emulate/net.sh): at 500 Mbit/s, 625 KB. The small sizes (1 to 8 KiB buffers,
// 22 ops per placement, two placements) send about 330 KB per node in all, so they never wait for
// a token; the large ones (4 and 8 MiB buffers: 2 and 4 MiB per node and op) drain the bucket in
// warm-up and then move at 62.5 MB/s or less: at least 32 and 64 ms per op (measured here: 85 and
// 180 ms, against 7 to 16 ms unshaped). The gate runs at --threshold 100 (twice as slow): between
// two unshaped runs the small sizes moved by up to 35% on a busy 2-core host, so none of them
// can be flagged, while the shaped large sizes stay about ten times slower, five times beyond it.
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "tests/emulated/emulated.hpp"

namespace collreplay::emulated_test {
namespace {

class CompareTest : public EmulatedTest {
 protected:
  // The sweep, into `folder`, on a 2-node cluster of `fabric`; the cluster is taken down again.
  void run_sweep(const std::string& fabric, const fs::path& folder) {
    const std::string fabrics = "FABRICS_FILE=" + quoted(dir_ / "fabrics.tsv") + " ";
    const Outcome up = run(fabrics + cluster("up", "--nodes 2 --fabric " + fabric));
    ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
    fs::create_directories(folder);
    for (const auto& [name, sizes] : {std::pair{"small", "-b 1K -e 8K -f 2 -n 20 -w 2"},
                                      std::pair{"large", "-b 4M -e 8M -f 2 -n 8 -w 2"}}) {
      const Outcome perf = run(cluster(
          "run", "-- mpirun -np 2 " + bin("all_gather_perf") + " --backend mpi " + sizes +
                     " --out " + quoted(folder / (std::string(name) + ".jsonl"))));
      ASSERT_EQ(perf.exit_code, 0) << name << " on " << fabric << ": " << perf.out << perf.err;
    }
    ASSERT_EQ(run(cluster("down")).exit_code, 0);
  }
};

TEST_F(CompareTest, FlagsExactlyTheSizesAShapedLinkSlowed) {
  std::ofstream(dir_ / "fabrics.tsv")
      << "name node_gbit_s latency_us links description\n"
         "unshaped 0 0 1 as fast as the host moves bytes\n"
         "gate-500m 0.5 0 1 500 Mbit/s, no latency: bursts up to 625 KB pass untouched\n";
  ASSERT_NO_FATAL_FAILURE(run_sweep("unshaped", dir_ / "base"));
  ASSERT_NO_FATAL_FAILURE(run_sweep("gate-500m", dir_ / "new"));

  const Outcome gate = run(bin("compare") + " " + quoted(dir_ / "base") + " " +
                           quoted(dir_ / "new") + " --threshold 100");
  EXPECT_EQ(gate.exit_code, 1) << gate.out << gate.err;
  // Each table row's size in bytes, by verdict.
  std::set<long> slower, not_slower;
  std::istringstream rows(gate.out);
  for (std::string row; std::getline(rows, row);) {
    if (!row.starts_with("| perf all_gather")) continue;
    const std::size_t bytes_end = row.find(" B, ");
    ASSERT_NE(bytes_end, std::string::npos) << row;
    const long bytes = std::stol(row.substr(row.rfind(' ', bytes_end - 1) + 1));
    (row.ends_with("| slower |") ? slower : not_slower).insert(bytes);
  }
  EXPECT_EQ(slower, (std::set<long>{4 << 20, 8 << 20})) << gate.out;
  EXPECT_EQ(not_slower, (std::set<long>{1024, 2048, 4096, 8192})) << gate.out;
  EXPECT_EQ(leftover_namespaces(kPrefix), "");
}

}  // namespace
}  // namespace collreplay::emulated_test
