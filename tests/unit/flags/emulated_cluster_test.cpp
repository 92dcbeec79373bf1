// A program on an emulated cluster's node takes the cluster's fabric and dilation: the state file
// parses, the node is found by its network namespace's identity (here: hard links stand in for
// the namespace files), and the run flags take the cluster's values or refuse others.
#include "bench/app/run/emulated_cluster.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "bench/flags/run_flags.hpp"
#include "common/errors.hpp"
#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;

std::string state_text(const std::string& prefix, int nodes, const std::string& fabric,
                       const std::string& dilation) {
  return "CL_PREFIX=" + prefix + "\nCL_NODES=" + std::to_string(nodes) + "\nCL_FABRIC=" + fabric +
         "\nCL_DILATE=" + dilation +
         "\nCL_FABRICS_FILE=" + fs::absolute("sweeps/fabrics.tsv").string() +
         "\nCL_LATENCY_NOTE=\"unavailable (no netem in this kernel)\"\n";
}

TEST(EmulatedClusterState, ParsesWhatClusterUpWrites) {
  const EmulatedCluster c = parse_cluster_state(state_text("crx", 4, "eth-100g", "200"), "s.env");
  EXPECT_EQ(c.prefix, "crx");
  EXPECT_EQ(c.nodes, 4);
  EXPECT_EQ(c.fabric, "eth-100g");
  EXPECT_EQ(c.dilation, 200);
  EXPECT_EQ(c.fabrics_file, fs::absolute("sweeps/fabrics.tsv").string());
  EXPECT_EQ(c.node, "");
}

TEST(EmulatedClusterState, AMissingOrBadFieldIsAUsageErrorNamingIt) {
  try {
    parse_cluster_state("CL_PREFIX=crx\nCL_NODES=2\nCL_DILATE=10\n", "/run/x.env");
    FAIL() << "no CL_FABRIC";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("CL_FABRIC"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/run/x.env"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_cluster_state(state_text("crx", 2, "eth-10g", "0"), "s"), UsageError);
  EXPECT_THROW(parse_cluster_state(state_text("crx", 2, "eth-10g", "10x"), "s"), UsageError);
  EXPECT_THROW(parse_cluster_state(state_text("crx", 0, "eth-10g", "10"), "s"), UsageError);
}

// A registry and a namespace folder in a scratch folder: the "own namespace" is a file, and the
// node whose namespace it is, a hard link to it (the same device and inode, as a namespace's
// bind mount under /run/netns is to /proc/self/ns/net).
class FindCluster : public cli_test::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    places_.registry_dir = (dir_ / "clusters").string();
    places_.netns_dir = (dir_ / "netns").string();
    places_.own_netns = (dir_ / "self-net").string();
    fs::create_directories(places_.registry_dir);
    fs::create_directories(places_.netns_dir);
    std::ofstream(places_.own_netns) << "ns";
  }
  void add_cluster(const std::string& prefix, int nodes, int own_node, const std::string& text) {
    std::ofstream(places_.registry_dir + "/" + prefix + ".env") << text;
    for (int i = 0; i < nodes; ++i) {
      const std::string node = places_.netns_dir + "/" + prefix + std::to_string(i);
      if (i == own_node)
        fs::create_hard_link(places_.own_netns, node);
      else
        std::ofstream(node) << "another namespace";
    }
  }
  ClusterPlaces places_;
};

TEST_F(FindCluster, TheNodeWhoseNamespaceThisIsNamesTheCluster) {
  add_cluster("cra", 2, -1, state_text("cra", 2, "eth-10g", "10"));
  add_cluster("crb", 3, 2, state_text("crb", 3, "ib-ndr-8x400", "6400"));
  const std::optional<EmulatedCluster> c = find_emulated_cluster(places_);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->prefix, "crb");
  EXPECT_EQ(c->node, "crb2");
  EXPECT_EQ(c->fabric, "ib-ndr-8x400");
  EXPECT_EQ(c->dilation, 6400);
}

TEST_F(FindCluster, OutsideEveryClusterThereIsNone) {
  add_cluster("cra", 2, -1, state_text("cra", 2, "eth-10g", "10"));
  EXPECT_FALSE(find_emulated_cluster(places_).has_value());
  places_.registry_dir = (dir_ / "no-such-folder").string();
  EXPECT_FALSE(find_emulated_cluster(places_).has_value());
}

TEST_F(FindCluster, AStateThatDoesNotDescribeTheNodeIsAUsageError) {
  add_cluster("crc", 2, 1, state_text("crc", 1, "eth-10g", "10"));  // node 1 of a 1-node state
  EXPECT_THROW(find_emulated_cluster(places_), UsageError);
}

EmulatedCluster cluster_of(const std::string& fabric, double dilation) {
  EmulatedCluster c;
  c.prefix = "crx";
  c.node = "crx1";
  c.nodes = 2;
  c.fabric = fabric;
  c.dilation = dilation;
  c.fabrics_file = "sweeps/fabrics.tsv";
  c.state_file = "/run/collreplay-clusters/crx.env";
  return c;
}

TEST(RunFlagsOnACluster, WithoutFlagsTheRunIsTheClustersEmulatedDilatedFabric) {
  const RunSetup setup = parse_run_flags(RunFlags{}, cluster_of("eth-100g", 200));
  ASSERT_TRUE(setup.fabric.has_value());
  EXPECT_EQ(setup.fabric->name, "eth-100g");
  EXPECT_EQ(setup.fabric->node_gbit_s, 100);
  EXPECT_TRUE(setup.emulated);
  EXPECT_EQ(setup.dilation, 200);
}

TEST(RunFlagsOnACluster, FlagsThatRepeatTheClusterAreAccepted) {
  RunFlags f;
  f.fabric = "eth-100g";
  f.dilation = 200;
  f.emulated = true;
  const RunSetup setup = parse_run_flags(f, cluster_of("eth-100g", 200));
  EXPECT_EQ(setup.fabric->name, "eth-100g");
  EXPECT_EQ(setup.dilation, 200);
}

TEST(RunFlagsOnACluster, AFabricOrDilationThatDisagreesIsAUsageErrorNamingBoth) {
  for (const auto& [fabric, dilation, flag] :
       {std::tuple<std::string, double, std::string>{"eth-10g", 200, "--fabric eth-10g"},
        {"real", 200, "--fabric real"},
        {"eth-100g", 1, "--dilate 1"},
        {"eth-100g", 20, "--dilate 20"}}) {
    RunFlags f;
    f.fabric = fabric;
    f.dilation = dilation;
    try {
      parse_run_flags(f, cluster_of("eth-100g", 200));
      FAIL() << flag << " was accepted";
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_TRUE(what.starts_with(flag)) << what;
      EXPECT_NE(what.find("crx1"), std::string::npos) << what;
      EXPECT_NE(what.find("eth-100g at dilation 200"), std::string::npos) << what;
    }
  }
}

TEST(RunFlagsOnACluster, OffTheClusterTheFlagsDecideAsBefore) {
  RunFlags f;
  f.fabrics_file = "sweeps/fabrics.tsv";
  const RunSetup plain = parse_run_flags(f, std::nullopt);
  EXPECT_FALSE(plain.fabric.has_value());
  EXPECT_FALSE(plain.emulated);
  EXPECT_EQ(plain.dilation, 1);
  f.fabric = "eth-10g";
  f.dilation = 4;
  const RunSetup labelled = parse_run_flags(f, std::nullopt);
  EXPECT_EQ(labelled.fabric->name, "eth-10g");
  EXPECT_FALSE(labelled.emulated);
  EXPECT_EQ(labelled.dilation, 4);
}

}  // namespace
}  // namespace collreplay
