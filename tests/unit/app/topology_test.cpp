#include "bench/preflight/topology.hpp"

#include <gtest/gtest.h>

#include <string>

namespace collreplay {
namespace {

// The fixture tree is tests/fixtures, two folders up from this file; tests run from the repository
// root.
std::string fixture_sysfs() {
  std::string here = __FILE__;
  return here.substr(0, here.rfind('/')) + "/../../fixtures/sysfs";
}

TEST(Topology, ReadsInfinibandPortsFromSysfs) {
  const Topology t = read_topology(fixture_sysfs());
  ASSERT_EQ(t.ib_ports.size(), 2u);
  EXPECT_EQ(t.ib_ports[0].device, "mlx5_0");
  EXPECT_EQ(t.ib_ports[0].port, 1);
  EXPECT_EQ(t.ib_ports[0].state, "ACTIVE");
  EXPECT_DOUBLE_EQ(t.ib_ports[0].rate_gbps, 400.0);
  EXPECT_EQ(t.ib_ports[0].link_layer, "InfiniBand");
  EXPECT_EQ(t.ib_ports[1].state, "DOWN");
  EXPECT_EQ(t.ib_ports[1].link_layer, "Ethernet");
}

TEST(Topology, ReadsNicsAndSkipsLoopback) {
  const Topology t = read_topology(fixture_sysfs());
  ASSERT_EQ(t.nics.size(), 3u);  // eth0, eth1, ib0 (sorted), no lo
  EXPECT_EQ(t.nics[0].name, "eth0");
  EXPECT_EQ(t.nics[0].speed_mbps, 100000);
  EXPECT_EQ(t.nics[0].operstate, "up");
  EXPECT_EQ(t.nics[1].name, "eth1");
  EXPECT_EQ(t.nics[1].speed_mbps, -1);  // the kernel says -1 for a down link
  EXPECT_EQ(t.nics[2].name, "ib0");
}

TEST(Topology, MissingSysfsGivesEmptyLists) {
  const Topology t = read_topology("/nonexistent-sysfs-root");
  EXPECT_TRUE(t.ib_ports.empty());
  EXPECT_TRUE(t.nics.empty());
}

}  // namespace
}  // namespace collreplay
