// Transport selection: parsing the ask, refusing what cannot work here, the library settings
// each ask becomes, judging the verified transport, and the emulated-node mapping.
#include "collectives/transport/transport_select.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "collectives/transport/emulated_nodes.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

std::string value_of(const Settings& settings, const std::string& name) {
  for (const auto& [n, v] : settings)
    if (n == name) return v;
  return "<unset>";
}

HostNetwork eth_host() { return {false, {"eth0", "lo"}, {"eth0", "lo"}}; }

TEST(TransportSelect, ParsesTheFiveAsksAndTheOldAny) {
  for (const char* name : {"auto", "ib", "socket", "nvlink", "shm"})
    EXPECT_EQ(parse_transport_request(name, "").name(), name);
  EXPECT_EQ(parse_transport_request("any", "").name(), "auto");
}

TEST(TransportSelect, UnknownTransportIsAUsageErrorNamingIt) {
  try {
    parse_transport_request("infiniband", "");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'infiniband'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_transport_request("", ""), UsageError);
}

TEST(TransportSelect, IbWithoutAnHcaIsRefused) {
  const TransportRequest ib = parse_transport_request("ib", "");
  EXPECT_THROW(check_transport_request(ib, BackendKind::nccl, eth_host(), true), UsageError);
  EXPECT_NO_THROW(check_transport_request(ib, BackendKind::nccl, {true, {"eth0"}, {"eth0"}}, true));
}

TEST(TransportSelect, MissingInterfaceIsRefusedNamingTheOnesThatExist) {
  const TransportRequest socket = parse_transport_request("socket", "eth7");
  try {
    check_transport_request(socket, BackendKind::mpi, eth_host(), true);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--ifname eth7"), std::string::npos) << what;
    EXPECT_NE(what.find("eth0"), std::string::npos) << what;
  }
  // NCCL's forms: a prefix, an exact name, an exclusion.
  EXPECT_NO_THROW(check_transport_request(parse_transport_request("socket", "eth"),
                                          BackendKind::nccl, eth_host(), true));
  EXPECT_NO_THROW(check_transport_request(parse_transport_request("socket", "=eth0,^docker"),
                                          BackendKind::nccl, eth_host(), true));
  EXPECT_THROW(check_transport_request(parse_transport_request("socket", "=eth"), BackendKind::nccl,
                                       eth_host(), true),
               UsageError);
}

TEST(TransportSelect, ThisHostsLoopbackExists) {
  const HostNetwork host = probe_host_network();
  EXPECT_NE(std::find(host.interfaces.begin(), host.interfaces.end(), "lo"), host.interfaces.end());
  EXPECT_NO_THROW(check_transport_request(parse_transport_request("socket", "lo"), BackendKind::mpi,
                                          host, true));
}

TEST(TransportSelect, HcaIsReadFromSysfs) {
  EXPECT_TRUE(probe_host_network("tests/fixtures/sysfs").has_hca);
  EXPECT_FALSE(probe_host_network("/nonexistent").has_hca);
}

TEST(TransportSelect, NvlinkOnMpiAndShmAcrossNodesAreRefused) {
  EXPECT_THROW(check_transport_request(parse_transport_request("nvlink", ""), BackendKind::mpi,
                                       eth_host(), true),
               UsageError);
  EXPECT_THROW(check_transport_request(parse_transport_request("shm", ""), BackendKind::nccl,
                                       eth_host(), false),
               UsageError);
  EXPECT_NO_THROW(check_transport_request(parse_transport_request("shm", ""), BackendKind::mpi,
                                          eth_host(), true));
}

TEST(TransportSelect, NcclSocketOnOneNodeTurnsLocalPathsOff) {
  const Settings one = nccl_transport_settings(parse_transport_request("socket", "eth0"), true);
  EXPECT_EQ(value_of(one, "NCCL_NET"), "Socket");
  EXPECT_EQ(value_of(one, "NCCL_IB_DISABLE"), "1");
  EXPECT_EQ(value_of(one, "NCCL_P2P_DISABLE"), "1");
  EXPECT_EQ(value_of(one, "NCCL_SHM_DISABLE"), "1");
  EXPECT_EQ(value_of(one, "NCCL_SOCKET_IFNAME"), "eth0");
  // Across nodes the hops inside a node stay local, as on a real cluster.
  const Settings many = nccl_transport_settings(parse_transport_request("socket", ""), false);
  EXPECT_EQ(value_of(many, "NCCL_P2P_DISABLE"), "<unset>");
  EXPECT_EQ(value_of(many, "NCCL_SOCKET_IFNAME"), "<unset>");
}

TEST(TransportSelect, NcclLocalAsks) {
  const Settings nvlink = nccl_transport_settings(parse_transport_request("nvlink", ""), true);
  EXPECT_EQ(value_of(nvlink, "NCCL_P2P_LEVEL"), "NVL");
  EXPECT_EQ(value_of(nvlink, "NCCL_SHM_DISABLE"), "1");
  const Settings shm = nccl_transport_settings(parse_transport_request("shm", ""), true);
  EXPECT_EQ(value_of(shm, "NCCL_P2P_DISABLE"), "1");
  EXPECT_EQ(value_of(shm, "NCCL_SHM_DISABLE"), "0");
  EXPECT_TRUE(nccl_transport_settings(parse_transport_request("auto", ""), true).empty());
  EXPECT_EQ(value_of(nccl_transport_settings(parse_transport_request("ib", ""), false),
                     "NCCL_IB_DISABLE"),
            "0");
}

TEST(TransportSelect, MpiSettingsAreOpenMpisOwn) {
  const Settings socket = mpi_transport_settings(parse_transport_request("socket", "eth0"));
  EXPECT_EQ(value_of(socket, "OMPI_MCA_pml"), "ob1");
  EXPECT_EQ(value_of(socket, "OMPI_MCA_btl"), "self,tcp");
  EXPECT_EQ(value_of(socket, "OMPI_MCA_btl_tcp_if_include"), "eth0");
  const Settings shm = mpi_transport_settings(parse_transport_request("shm", ""));
  EXPECT_EQ(value_of(shm, "OMPI_MCA_btl"), "self,vader");
  const Settings ib = mpi_transport_settings(parse_transport_request("ib", ""));
  EXPECT_EQ(value_of(ib, "OMPI_MCA_pml"), "ucx");
  EXPECT_EQ(value_of(ib, "OMPI_MCA_pml_ucx_tls"), "any");
  EXPECT_EQ(value_of(ib, "OMPI_MCA_pml_ucx_devices"), "any");
  EXPECT_TRUE(mpi_transport_settings(parse_transport_request("auto", "")).empty());
}

TEST(TransportSelect, MatchesInOneVocabulary) {
  EXPECT_TRUE(transport_matches("auto", "anything"));
  EXPECT_TRUE(transport_matches("socket", "socket"));
  EXPECT_TRUE(transport_matches("socket", "tcp"));
  EXPECT_TRUE(transport_matches("socket", "ucx:tcp"));
  EXPECT_TRUE(transport_matches("shm", "ucx:sm,self"));
  EXPECT_TRUE(transport_matches("ib", "ucx:rc,ud,self"));
  EXPECT_TRUE(transport_matches("nvlink", "self"));  // one rank: nothing crosses a link
  EXPECT_FALSE(transport_matches("nvlink", "nvlink+shm"));
  EXPECT_FALSE(transport_matches("socket", "ib"));  // a plugin that ignored NCCL_IB_DISABLE
  EXPECT_FALSE(transport_matches("ib", "socket"));
  EXPECT_FALSE(transport_matches("socket", "socket (inferred)"));
  EXPECT_FALSE(transport_matches("shm", "tcp"));
}

TEST(TransportSelect, AddressRangesResolveToInterfaces) {
  const std::vector<std::string> loopback = interfaces_in("127.0.0.0/8");
  EXPECT_NE(std::find(loopback.begin(), loopback.end(), "lo"), loopback.end());
  EXPECT_TRUE(interfaces_in("198.19.255.0/24").empty());
  EXPECT_EQ(interfaces_in("eth3"), std::vector<std::string>{"eth3"});
}

TEST(EmulatedNodes, ConsecutiveBlocksOfRanks) {
  EXPECT_EQ(emulated_node_of(0, 8, 4).node, 0);
  EXPECT_EQ(emulated_node_of(1, 8, 4).node, 0);
  EXPECT_EQ(emulated_node_of(2, 8, 4).node, 1);
  EXPECT_EQ(emulated_node_of(7, 8, 4).node, 3);
  EXPECT_EQ(emulated_node_of(7, 8, 4).ranks_per_node, 2);
  EXPECT_EQ(emulated_node_of(1, 2, 2).node, 1);  // one GPU per node: NCCL may pick PAT
}

TEST(EmulatedNodes, NodesMustDivideTheRanks) {
  EXPECT_THROW(emulated_node_of(0, 6, 4), UsageError);
  EXPECT_THROW(emulated_node_of(0, 2, 4), UsageError);
  EXPECT_THROW(emulated_node_of(0, 2, 0), UsageError);
}

TEST(EmulatedNodes, HostIdsDifferPerNodeAndPerRealHost) {
  EXPECT_NE(emulated_host_id("gpu1", 0), emulated_host_id("gpu1", 1));
  EXPECT_NE(emulated_host_id("gpu1", 0), emulated_host_id("gpu2", 0));
  EXPECT_EQ(emulated_host_id("gpu1", 1), emulated_host_id("gpu1", 1));
}

}  // namespace
}  // namespace collreplay
