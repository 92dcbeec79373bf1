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
  EXPECT_EQ(nccl_log_path_kinds("NCCL INFO Channel 00/1 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"),
            std::vector<std::string>{"ib"});
  EXPECT_EQ(nccl_log_path_kinds("NCCL INFO Channel 00/1 : 0[0] -> 8[0] [send] via NET/IBext_v8/3\n"),
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

TEST(NcclLog, ExpandsHostAndPid) {
  EXPECT_EQ(expand_nccl_debug_file("/tmp/nccl.%h.%p.log", "node1", 42), "/tmp/nccl.node1.42.log");
}

}  // namespace
}  // namespace collreplay
