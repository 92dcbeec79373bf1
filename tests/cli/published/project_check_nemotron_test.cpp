// `project --check` over PUBLISHED.md E (tests/fixtures/published/e_nemotron_15b.csv): Nemotron-4
// 15B with tensor parallelism and the distributed optimizer, 2 to 256 nodes of DGX H100. Every row
// is projected under its own layout (the tp, distributed_optimizer, async_tp and ddp_bucket_size
// columns reach the schedule: the first points differ by TP degree and micro-batch) and the
// table says each series' verdict, whichever it is.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

class ProjectCheckNemotron : public ScratchDirTest {};

TEST_F(ProjectCheckNemotron, ProjectsBothReleasesAtEveryNodeCount) {
  const std::string fixture =
      (bin_dir() / "../../tests/fixtures/published/e_nemotron_15b.csv").string();
  const Outcome r = run((bin_dir() / "project").string() + " --check " + fixture);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  // Each table row: series, nodes, GPUs, then its figures.
  std::set<std::pair<std::string, int>> rows;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string series;
    int nodes = 0, gpus = 0;
    if (words >> series >> nodes >> gpus && gpus == nodes * 8) rows.insert({series, nodes});
  }
  for (const char* series : {"E-v24.11-tp4", "E-v25.04-tp2"})
    for (int nodes : {2, 4, 8, 16, 32, 64, 128, 256})
      EXPECT_TRUE(rows.count({series, nodes})) << series << " " << nodes << "\n" << r.out;
  EXPECT_NE(r.out.find("series pass"), std::string::npos) << r.out;
  // The two first points, projected from their own schedules, differ.
  const std::size_t at = r.out.find("# first points");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(r.out.find("E-v24.11-tp4", at), std::string::npos);
  EXPECT_NE(r.out.find("E-v25.04-tp2", at), std::string::npos);
}

// The projected tokens/s per GPU of a one-row fixture's first point.
double first_point(const std::string& out) {
  const std::size_t at = out.find("# first points");
  const std::size_t row = out.find("\nE ", at);
  if (at == std::string::npos || row == std::string::npos) return -1;
  double nodes = 0, real = 0, projected = 0;
  std::sscanf(out.c_str() + row, "\nE %lf %lf %lf", &nodes, &real, &projected);
  return projected;
}

// The layout columns reach the projected schedule: the same row under TP 4 with the distributed
// optimizer, under TP 4 with DDP's all-reduce, and with no layout columns (DDP over all 16 GPUs,
// whose 15.6B parameters do not fit: still projected) projects three different throughputs.
TEST_F(ProjectCheckNemotron, LayoutColumnsChangeTheProjection) {
  const std::string header =
      "series,model,gpu,gpus_per_node,nodes,fabric,plan,sharding,micro_batch,grad_accum,seq,ac,"
      "reduce_dtype,tokens_per_s_per_gpu,band,source";
  const std::string row = "E,nemotron-4-15b,h100,8,2,ib-ndr-8x400,ddp,full,4,4,4096,no,bf16,5789,"
                          "absolute,test";
  std::vector<double> projected;
  for (const std::string& columns : {std::string(",tp,distributed_optimizer\n"),
                                     std::string(",tp\n"), std::string("\n")}) {
    const fs::path fixture = dir_ / "e.csv";
    const std::string cells = columns == ",tp,distributed_optimizer\n" ? ",4,yes\n"
                              : columns == ",tp\n"                     ? ",4\n"
                                                                        : "\n";
    std::ofstream(fixture) << header << columns << row << cells;
    const Outcome r = run((bin_dir() / "project").string() + " --check " + fixture.string());
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    projected.push_back(first_point(r.out));
    EXPECT_GT(projected.back(), 0) << r.out;
  }
  EXPECT_NE(projected[0], projected[1]);
  EXPECT_NE(projected[1], projected[2]);
}

}  // namespace
}  // namespace collreplay::cli_test
