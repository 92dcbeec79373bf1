// Fabric profiles: the project's own sweeps/fabrics.tsv parses, --fabric is checked against it,
// and a malformed file is a usage error naming its line.
#include "bench/app/run/fabric_profiles.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "common/errors.hpp"

namespace collreplay {
namespace {

TEST(FabricProfiles, TheProjectsFileHasTheNamedProfiles) {
  const auto profiles = read_fabric_profiles("sweeps/fabrics.tsv");
  ASSERT_GE(profiles.size(), 5u);
  bool unshaped = false, eth1g = false;
  for (const FabricProfile& p : profiles) {
    if (p.name == "unshaped") unshaped = p.node_gbit_s == 0;
    if (p.name == "eth-1g") eth1g = p.node_gbit_s == 1 && p.links == 1 && !p.description.empty();
  }
  EXPECT_TRUE(unshaped);
  EXPECT_TRUE(eth1g);
}

TEST(FabricProfiles, RealNeedsNoFileAndUnknownNamesAreRefused) {
  EXPECT_FALSE(check_fabric("real", "/nonexistent/fabrics.tsv").has_value());
  EXPECT_EQ(check_fabric("eth-10g", "sweeps/fabrics.tsv")->node_gbit_s, 10);
  try {
    check_fabric("eth-7g", "sweeps/fabrics.tsv");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("eth-7g"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("eth-1g"), std::string::npos);  // the known ones
  }
  EXPECT_THROW(check_fabric("eth-1g", "/nonexistent/fabrics.tsv"), UsageError);
}

TEST(FabricProfiles, MalformedLineIsNamed) {
  char path[] = "/tmp/collreplay-fabrics-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << "# comment\nname node_gbit_s latency_us links description\n"
                         "good 10 5 1 fine\nbad ten 5 1 broken\n";
  try {
    read_fabric_profiles(path);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(std::string(path) + ":4"), std::string::npos) << e.what();
  }
  std::remove(path);
}

TEST(FabricProfiles, DefaultFileIsBesideTheBuild) {
  // build/bin/unit_tests -> <repo>/sweeps/fabrics.tsv
  const std::string path = default_fabrics_file();
  EXPECT_TRUE(path.ends_with("sweeps/fabrics.tsv")) << path;
  EXPECT_NO_THROW(read_fabric_profiles(path));
}

}  // namespace
}  // namespace collreplay
