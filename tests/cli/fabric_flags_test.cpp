// The fabric flags on the executables: --transport/--ifname select and verify, --fabric is
// checked against sweeps/fabrics.tsv, --emulated/--dilate/--compute are recorded; bad values exit
// 2 with one line before anything runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "collectives/backend.hpp"
#include "collectives/transport/transport_select.hpp"
#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;
using namespace cli_test;

const std::string kTinyModel = "--model sweeps/models/replay-tiny.json --layers 1 --seq 32";

class FabricFlags : public ScratchDirTest {
 protected:
  // Bad input on both kinds of executable: exit 2, one line naming `names`, no file.
  void expect_usage_error(const std::string& args, const std::string& names) {
    const fs::path out = dir_ / "r.jsonl";
    for (const std::string& exe : {std::string("all_gather_perf --backend mpi -b 1K -e 1K"),
                                   "replay --backend mpi " + kTinyModel}) {
      const Outcome o = run((bin_dir() / exe).string() + " --out " + out.string() + " " + args);
      EXPECT_EQ(o.exit_code, 2) << exe << " " << args << "\n" << o.err;
      EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << exe << " " << args << "\n"
                                                                 << o.err;
      EXPECT_NE(o.err.find(names), std::string::npos) << exe << " " << args << "\n" << o.err;
      EXPECT_TRUE(fs::is_empty(dir_)) << exe << " " << args << " left a file behind";
    }
  }

  // The first record of a 2-rank all_gather_perf run with `args` (host backend and one small
  // size unless `base` says otherwise).
  nlohmann::json perf_record(const std::string& args, std::string* out_text = nullptr,
                             const std::string& base = "--backend mpi -b 64K -e 64K") {
    const fs::path out = dir_ / "ag.jsonl";
    const Outcome o = run(mpirun_command() + " -np 2 " + (bin_dir() / "all_gather_perf").string() +
                          " " + base + " -n 2 --timeout 60 --out " + out.string() + " " + args);
    EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
    if (out_text) *out_text = o.out;
    std::ifstream in(out);
    std::string line;
    if (!std::getline(in, line)) return nlohmann::json::object();
    return nlohmann::json::parse(line);
  }
};

TEST_F(FabricFlags, UnknownTransport) { expect_usage_error("--transport ethernet", "'ethernet'"); }
TEST_F(FabricFlags, UnknownFabric) { expect_usage_error("--fabric eth-7g", "eth-7g"); }
TEST_F(FabricFlags, MissingFabricsFile) {
  expect_usage_error("--fabric eth-1g --fabrics-file /nonexistent/fabrics.tsv", "/nonexistent");
}
TEST_F(FabricFlags, MissingInterface) {
  expect_usage_error("--transport socket --ifname nosuch0", "--ifname nosuch0");
}
TEST_F(FabricFlags, UnknownModelGpu) { expect_usage_error("--compute model:xyz", "'xyz'"); }
TEST_F(FabricFlags, BadComputeEngine) { expect_usage_error("--compute gpu", "--compute 'gpu'"); }
TEST_F(FabricFlags, ZeroDilation) { expect_usage_error("--dilate 0", "--dilate"); }
TEST_F(FabricFlags, NegativeDilation) { expect_usage_error("--dilate -2", "--dilate"); }
TEST_F(FabricFlags, NvlinkOnMpi) { expect_usage_error("--transport nvlink", "--backend nccl"); }
TEST_F(FabricFlags, EmulatedNodesOnMpi) {
  expect_usage_error("--emulate-nodes 2", "--emulate-nodes");
}

TEST_F(FabricFlags, IbWithoutAnHca) {
  if (probe_host_network().has_hca) GTEST_SKIP() << "this host has an InfiniBand device";
  expect_usage_error("--transport ib", "no InfiniBand");
  // Under mpirun every rank refuses alike: exit 2, rank 0's line once.
  const Outcome o = run(mpirun_command() + " -np 2 " + (bin_dir() / "all_reduce_perf").string() +
                        " --backend mpi -b 1K -e 1K --transport ib");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("--transport ib"), std::string::npos) << o.err;
}

TEST_F(FabricFlags, SocketOnLoopbackIsSelectedVerifiedAndRecorded) {
  std::string table;
  const nlohmann::json r = perf_record(
      "--transport socket --ifname lo --fabric eth-1g --emulated --dilate 2 --compute model:h100",
      &table);
  const nlohmann::json& run = r["run"];
  EXPECT_EQ(run["transport_asked"], "socket");
  EXPECT_EQ(run["transport_verified"], "tcp");
  EXPECT_EQ(run["interfaces"], nlohmann::json::array({"lo"}));
  EXPECT_EQ(run["environment"]["OMPI_MCA_btl"], "self,tcp");
  EXPECT_EQ(run["environment"]["OMPI_MCA_btl_tcp_if_include"], "lo");
  EXPECT_EQ(run["fabric"], "eth-1g");
  EXPECT_EQ(run["emulated"], true);
  EXPECT_EQ(run["dilation"], 2.0);
  EXPECT_EQ(run["compute"], "model:h100@0.5");
  EXPECT_TRUE(run["nccl_algo"].is_object());
  EXPECT_EQ(r["wrong"], 0);
  EXPECT_NE(table.find("fabric eth-1g (emulated), dilation 2"), std::string::npos) << table;
}

TEST_F(FabricFlags, SharedMemoryUsesNoInterface) {
  const nlohmann::json run = perf_record("--transport shm")["run"];
  EXPECT_EQ(run["transport_asked"], "shm");
  EXPECT_EQ(run["transport_verified"], "shm");
  EXPECT_EQ(run["interfaces"], nlohmann::json::array());
  EXPECT_EQ(run["environment"]["OMPI_MCA_btl"], "self,vader");
  EXPECT_EQ(run["fabric"], "real");
  EXPECT_EQ(run["emulated"], false);
  EXPECT_EQ(run["dilation"], 1.0);
}

TEST_F(FabricFlags, ReplayRecordsTheFabricAndUndilatedModeledCompute) {
  const fs::path out = dir_ / "replay.jsonl";
  // The modeled wait is 4x longer, and the reported compute divided by 4 again: still at least
  // the modeled time.
  const Outcome o = run(mpirun_command() + " -np 2 " + (bin_dir() / "replay").string() +
                        " --backend mpi " + kTinyModel +
                        " --steps 2 --warmup 1 --transport socket"
                        " --ifname lo --fabric eth-10g --emulated --dilate 4 --compute "
                        "model:a100@0.0002 --out " +
                        out.string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::ifstream in(out);
  std::string line;
  nlohmann::json step;
  while (std::getline(in, line))
    if (nlohmann::json r = nlohmann::json::parse(line); r["record"] == "step") step = r;
  ASSERT_FALSE(step.is_null());
  EXPECT_EQ(step["run"]["fabric"], "eth-10g");
  EXPECT_EQ(step["run"]["dilation"], 4.0);
  EXPECT_EQ(step["run"]["transport_verified"], "tcp");
  const double modeled_ms = step["flops_per_step"].get<double>() / (312.0 * 1e9 * 0.0002);
  EXPECT_GE(step["compute_ms"].get<double>(), modeled_ms * (1 - 1e-6)) << step.dump();
  EXPECT_NE(o.out.find("dilation 4 (times shown undilated)"), std::string::npos) << o.out;
}

// On a GPU machine: 2 ranks with distinct NCCL_HOSTID are 2 nodes to NCCL, connected by its
// network transport; the records count the emulated nodes and name NCCL's algorithm.
TEST_F(FabricFlags, EmulatedNodesOnTwoGpus) {
  if (visible_gpu_count() < 2) GTEST_SKIP() << "needs 2 GPUs (NCCL backend)";
  const nlohmann::json r =
      perf_record("--emulate-nodes 2 --transport socket", nullptr, "--backend nccl -b 1M -e 1M");
  const nlohmann::json& run = r["run"];
  EXPECT_EQ(run["nodes"], 2);
  EXPECT_EQ(run["ranks_per_node"], 1);
  EXPECT_EQ(run["emulated"], true);
  EXPECT_EQ(run["transport_verified"], "socket");
  EXPECT_FALSE(run["interfaces"].empty()) << run.dump();
  ASSERT_TRUE(run["nccl_algo"].contains("AllGather")) << run["nccl_algo"].dump();
  EXPECT_EQ(r["nodes"], 2);
}

}  // namespace
}  // namespace collreplay
