// broadcast_perf and sendrecv_perf over host MPI with the data check, and a replay of a
// hand-written schedule (tests/fixtures/replay-p2p.json: a broadcast from rank 1, a send/recv
// pair that both ranks list send first, a strided-group all-reduce) on 2 and 4 host ranks.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

using namespace cli_test;

std::string mpirun(int ranks) { return mpirun_command() + " -np " + std::to_string(ranks) + " "; }

class P2pCli : public ScratchDirTest {};

// Every line of the table reports 0 wrong and the footer says OK; the records name the op.
void expect_clean_table(const Outcome& o, const std::string& op, int sizes) {
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("# Out of bounds values : 0 OK"), std::string::npos) << o.out;
  int rows = 0;
  std::istringstream lines(o.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#') ++rows;
  EXPECT_EQ(rows, sizes) << o.out;
  (void)op;
}

TEST_F(P2pCli, BroadcastPerfFromRankOneIsExact) {
  const std::string out = (dir_ / "bcast.jsonl").string();
  const Outcome o = run(mpirun(2) + (bin_dir() / "broadcast_perf").string() +
                        " --backend mpi -b 1K -e 64K -f 8 -n 3 -w 1 -c 1 -r 1 --out " + out);
  expect_clean_table(o, "broadcast", 3);
  std::istringstream lines(o.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string size, count, type, redop, root;
    fields >> size >> count >> type >> redop >> root;
    EXPECT_EQ(redop + " " + root, "none 1") << line;  // the root column
  }
  const auto records = read_jsonl(out);
  ASSERT_FALSE(records.empty());
  for (const auto& r : records) {
    EXPECT_EQ(r["op"], "broadcast");
    EXPECT_EQ(r["root"], 1);
    EXPECT_EQ(r["wrong"], 0) << r.dump();
  }
  // A root outside the world: exit 2 and one line.
  const Outcome bad =
      run(mpirun(2) + (bin_dir() / "broadcast_perf").string() + " --backend mpi -b 1K -e 1K -r 2");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("root 2"), std::string::npos) << bad.err;
}

TEST_F(P2pCli, SendRecvPerfRingIsExactOnFourRanks) {
  const std::string out = (dir_ / "sendrecv.jsonl").string();
  const Outcome o = run(mpirun(4) + (bin_dir() / "sendrecv_perf").string() +
                        " --backend mpi -b 1K -e 1M -f 32 -n 3 -w 1 -c 1 -d bfloat16 --out " + out);
  expect_clean_table(o, "send_recv", 3);
  for (const auto& r : read_jsonl(out)) {
    EXPECT_EQ(r["op"], "send_recv");
    EXPECT_EQ(r["wrong"], 0) << r.dump();
  }
}

// The fixture for `ranks` ranks: rank r's pair peer is the other rank of its pair, and the
// all-reduce group pairs ranks world/2 apart (stride 1 on two ranks).
void write_rank_schedules(const fs::path& dir, int ranks) {
  const nlohmann::json base = nlohmann::json::parse(slurp("tests/fixtures/replay-p2p.json"));
  for (int r = 0; r < ranks; ++r) {
    nlohmann::json j = base;
    j["world"] = ranks;
    j["rank"] = r;
    j["gpus_per_node"] = ranks;
    for (auto& op : j["ops"]) {
      if (!op.contains("collective")) continue;
      auto& c = op["collective"];
      if (c["kind"] == "send" || c["kind"] == "recv") c["peer"] = 1 - r % 2;
      if (c["kind"] == "all_reduce") c["group_stride"] = ranks / 2;
    }
    std::ofstream(dir / ("rank" + std::to_string(r) + ".json")) << j.dump(1);
  }
}

class P2pReplay : public ScratchDirTest, public ::testing::WithParamInterface<int> {};

TEST_P(P2pReplay, HandWrittenScheduleReplaysChecksAndReports) {
  const int ranks = GetParam();
  write_rank_schedules(dir_, ranks);
  const std::string out = (dir_ / "replay.jsonl").string();
  const Outcome o =
      run(mpirun(ranks) + (bin_dir() / "replay").string() + " --backend mpi --schedule " +
          (dir_ / "rank%d.json").string() + " --steps 2 --warmup 1 -c --out " + out);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  int ops = 0;
  for (const auto& r : read_jsonl(out)) {
    if (r.value("record", "") != "op" || !r.contains("kind")) continue;
    ++ops;
    const std::string name = r["name"];
    if (name == "bcast.params") {
      EXPECT_EQ(r["kind"], "broadcast");
      EXPECT_EQ(r["root"], 1);
      EXPECT_EQ(r["group_size"], ranks);
    } else if (name == "pp.send.act" || name == "pp.recv.act") {
      EXPECT_EQ(r["kind"], name == "pp.send.act" ? "send" : "recv");
      EXPECT_EQ(r["bytes"], 65536);
      EXPECT_EQ(r["group"], "strided");
      EXPECT_EQ(r["group_size"], 2);
      EXPECT_EQ(r["peer"], 1);  // rank 0's record: its pair's other rank
    } else {
      EXPECT_EQ(r["kind"], "all_reduce");
      EXPECT_EQ(r["group_stride"], ranks / 2);
    }
    EXPECT_GT(r["comm_only_ms"]["max"].get<double>(), 0) << r.dump();
  }
  EXPECT_EQ(ops, 4) << o.out;
}

INSTANTIATE_TEST_SUITE_P(Ranks, P2pReplay, ::testing::Values(2, 4));

TEST_F(P2pReplay, DryRunListsTheNewKindsAndGroups) {
  write_rank_schedules(dir_, 4);
  const Outcome o = run((bin_dir() / "replay").string() + " --dry-run --schedule " +
                        (dir_ / "rank0.json").string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("broadcasts      1  4,096 B"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("sends / recvs   1 / 1"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("strided(2,1)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("strided(2,2)"), std::string::npos) << o.out;
}

TEST_F(P2pReplay, BadStridedGroupIsAUsageError) {
  write_rank_schedules(dir_, 2);
  nlohmann::json j = nlohmann::json::parse(slurp(dir_ / "rank0.json"));
  j["ops"][5]["collective"]["group_size"] = 3;
  std::ofstream(dir_ / "bad.json") << j.dump();
  const Outcome o = run((bin_dir() / "replay").string() + " --dry-run --schedule " +
                        (dir_ / "bad.json").string());
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(count_lines(o.err), 1) << o.err;
  EXPECT_NE(o.err.find("group_size x group_stride (3 x 1) is larger than world 2"),
            std::string::npos)
      << o.err;
}

}  // namespace
}  // namespace collreplay
