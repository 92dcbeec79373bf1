#include "collectives/transport/nccl_log.hpp"

#include <gtest/gtest.h>

namespace collreplay {
namespace {

// Lines as NCCL 2.28 writes them with NCCL_DEBUG=INFO.
constexpr const char* kNvlinkLog =
    "h:1:2 [0] NCCL INFO Using network Socket\n"
    "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
    "h:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n";
constexpr const char* kSocketLog =
    "h:1:2 [0] NCCL INFO Using network Socket\n"
    "h:1:2 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [receive] via NET/Socket/0\n"
    "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0\n";

TEST(NcclLog, NvlinkChannels) {
  const auto kinds = nccl_log_path_kinds(kNvlinkLog);
  ASSERT_EQ(kinds, std::vector<std::string>{"p2p"});
  EXPECT_EQ(nccl_transport_name(kinds, "nvlink"), "nvlink");
}

TEST(NcclLog, SocketChannelsNotThePluginLine) {
  const auto kinds = nccl_log_path_kinds(kSocketLog);
  ASSERT_EQ(kinds, std::vector<std::string>{"socket"});
  EXPECT_EQ(nccl_transport_name(kinds, "nvlink"), "socket");
}

TEST(NcclLog, IbAndPluginsAndShm) {
  EXPECT_EQ(
      nccl_log_path_kinds("NCCL INFO Channel 00/1 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"),
      std::vector<std::string>{"ib"});
  EXPECT_EQ(
      nccl_log_path_kinds("NCCL INFO Channel 00/1 : 0[0] -> 8[0] [send] via NET/IBext_v8/3\n"),
      std::vector<std::string>{"ib"});
  EXPECT_EQ(nccl_log_path_kinds("NCCL INFO Channel 00 : 0[0] -> 1[1] via NET/AWS Libfabric/0\n"),
            std::vector<std::string>{"aws libfabric"});
  EXPECT_EQ(nccl_log_path_kinds("NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n"),
            std::vector<std::string>{"shm"});
}

TEST(NcclLog, NetworkWinsOverLocalHopsAndMixesAreNamed) {
  EXPECT_EQ(nccl_transport_name({"ib", "p2p"}, "nvlink"), "ib");
  EXPECT_EQ(nccl_transport_name({"p2p", "shm"}, "nvlink"), "nvlink+shm");
  EXPECT_EQ(nccl_transport_name({}, "nvlink"), "");
}

// Tuning lines (NCCL_DEBUG_SUBSYS=TUNING), written by each communicator's rank 0; older
// versions append " comm 0x..." and spell the algorithm in mixed case.
TEST(NcclLog, AlgorithmsPerCollective) {
  const char* log =
      "h:1:2 [0] NCCL INFO AllGather: 1048576 Bytes -> Algo PAT proto SIMPLE "
      "channel{Lo..Hi}={0..1}\n"
      "h:1:2 [0] NCCL INFO AllGather: 67108864 Bytes -> Algo RING proto SIMPLE "
      "channel{Lo..Hi}={0..3}\n"
      "h:1:2 [0] NCCL INFO ReduceScatter: 1048576 Bytes -> Algo PAT proto SIMPLE "
      "channel{Lo..Hi}={0..1}\n"
      "h:1:2 [0] NCCL INFO AllReduce: 4 Bytes -> Algo Tree proto LL channel{Lo..Hi}={0..0} comm "
      "0x55a7\n"
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0\n";
  const std::map<std::string, std::string> algos = nccl_log_algorithms(log);
  ASSERT_EQ(algos.size(), 3u);
  EXPECT_EQ(algos.at("AllGather"), "PAT+RING");
  EXPECT_EQ(algos.at("ReduceScatter"), "PAT");
  EXPECT_EQ(algos.at("AllReduce"), "TREE");
  EXPECT_TRUE(nccl_log_algorithms(kNvlinkLog).empty());
}

TEST(NcclLog, SocketInterfacesOfTheNetworkInUse) {
  const char* log =
      "h:1:2 [0] NCCL INFO NET/IB : No device found.\n"
      "h:1:2 [0] NCCL INFO NET/Socket : Using [0]ib0:10.1.0.1<0> [1]eth0:10.0.0.1<0>\n"
      "h:1:2 [0] NCCL INFO Using network Socket\n";
  EXPECT_EQ(nccl_log_net_interfaces(log), (std::vector<std::string>{"ib0", "eth0"}));
}

TEST(NcclLog, IbPortsNotTheBootstrapInterface) {
  const char* log =
      "h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB "
      "eth0:10.0.0.1<0>\n"
      "h:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
      "h:1:2 [0] NCCL INFO Using network IB\n";
  EXPECT_EQ(nccl_log_net_interfaces(log), (std::vector<std::string>{"mlx5_0:1", "mlx5_1:1"}));
  EXPECT_TRUE(nccl_log_net_interfaces(kNvlinkLog).empty());  // "Using network" but no device line
}

TEST(NcclLog, ExpandsHostAndPid) {
  EXPECT_EQ(expand_nccl_debug_file("/tmp/nccl.%h.%p.log", "node1", 42), "/tmp/nccl.node1.42.log");
}

}  // namespace
}  // namespace collreplay
