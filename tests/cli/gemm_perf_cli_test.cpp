// gemm_perf's bad input: exit 2 and one line naming the problem, before any GPU is touched, and
// no results file.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;
using namespace cli_test;

class GemmPerfCli : public ScratchDirTest {
 protected:
  void expect_usage_error(const std::string& args, const std::string& names) {
    const fs::path out = dir_ / "gemm.jsonl";
    const Outcome o =
        run((bin_dir() / "gemm_perf").string() + " --out " + out.string() + " " + args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << "\n" << o.err;
    EXPECT_NE(o.err.find(names), std::string::npos) << args << "\n" << o.err;
    EXPECT_TRUE(fs::is_empty(dir_)) << args << " left a file behind";
  }
};

TEST_F(GemmPerfCli, ShapeWithALetter) {
  expect_usage_error("--shape 12xabx4", "--shape '12xabx4'");
}
TEST_F(GemmPerfCli, ShapeWithTwoDimensions) { expect_usage_error("--shape 12x4", "MxNxK"); }
TEST_F(GemmPerfCli, ShapeWithZero) { expect_usage_error("--shape 0x4x4", "positive"); }
TEST_F(GemmPerfCli, UnknownModel) { expect_usage_error("--model no-such-model", "no-such-model"); }
TEST_F(GemmPerfCli, ZeroRounds) { expect_usage_error("--shape 8x8x8 --rounds 0", "--rounds"); }

}  // namespace
}  // namespace collreplay
