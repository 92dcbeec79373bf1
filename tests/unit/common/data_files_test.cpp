// The one rule for the project's data files (common/data_files.hpp): COLLREPLAY_DATA first when
// set, then the executable's folder and each above it (and their share/collreplay), then the
// checkout the build came from; a missing file is a UsageError naming the flag that gives it.
#include "common/data_files.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "common/errors.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;

TEST(DataFiles, TheBuildFindsTheCheckoutsFabricProfiles) {
  // build/bin/unit_tests: two folders up is the checkout.
  const std::string found = find_data_file("sweeps/fabrics.tsv");
  ASSERT_FALSE(found.empty());
  const fs::path exe = fs::read_symlink("/proc/self/exe");
  EXPECT_EQ(fs::path(found), fs::weakly_canonical(exe.parent_path() / "../../sweeps/fabrics.tsv"));
}

TEST(DataFiles, RootsRunFromTheExecutableUpwardsWithTheirShareFolders) {
  unsetenv("COLLREPLAY_DATA");
  const std::vector<std::string> roots = data_roots();
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe").parent_path();
  ASSERT_GE(roots.size(), 4u);
  EXPECT_EQ(roots[0], exe_dir.string());
  EXPECT_EQ(roots[1], (exe_dir / "share/collreplay").string());
  EXPECT_EQ(roots[2], exe_dir.parent_path().string());
}

TEST(DataFiles, CollreplayDataComesFirstWhenSet) {
  setenv("COLLREPLAY_DATA", "/tmp/collreplay-data-test", 1);
  const std::vector<std::string> roots = data_roots();
  unsetenv("COLLREPLAY_DATA");
  ASSERT_FALSE(roots.empty());
  EXPECT_EQ(roots[0], "/tmp/collreplay-data-test");
}

TEST(DataFiles, AMissingFileNamesWhatWasLookedForAndTheFlag) {
  EXPECT_EQ(find_data_file("sweeps/no-such-file.tsv"), "");
  try {
    require_data_file("sweeps/no-such-file.tsv", "--fabrics-file");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("sweeps/no-such-file.tsv"), std::string::npos) << what;
    EXPECT_NE(what.find("give --fabrics-file"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace collreplay
