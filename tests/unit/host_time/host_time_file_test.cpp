// --host-time's calibration file (workloads/plan/step/host_time_file.hpp): a good file gives its
// four per-launch figures and says which host, CPU and torch they come from; a malformed one is a
// UsageError of one line naming the file; the defaults say where they were read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/errors.hpp"
#include "workloads/plan/step/host_time_file.hpp"

namespace collreplay {
namespace {

const char* kGood = R"({"record": "host_time_calibration", "host": "gpu-node-7",
  "cpu": "Intel(R) Xeon(R) Platinum 8480C", "torch": "2.11.0+cu130", "gpu": "NVIDIA H200",
  "forward_us": 41.5, "backward_us": 30.25, "optimizer_loop_us": 60, "optimizer_multi_us": 8.5,
  "launches": {"forward": 120}})";

TEST(HostTimeFile, AGoodFileGivesItsFiguresAndSaysWhereTheyWereMeasured) {
  const HostTimeSetting s = parse_host_time_calibration(kGood, "cal.json");
  EXPECT_DOUBLE_EQ(s.per_launch.forward_us, 41.5);
  EXPECT_DOUBLE_EQ(s.per_launch.backward_us, 30.25);
  EXPECT_DOUBLE_EQ(s.per_launch.optimizer_loop_us, 60);
  EXPECT_DOUBLE_EQ(s.per_launch.optimizer_multi_us, 8.5);
  for (const char* said : {"gpu-node-7", "Xeon(R) Platinum 8480C", "torch 2.11.0+cu130",
                           "NVIDIA H200", "cal.json", "forward 41.5"})
    EXPECT_NE(s.source.find(said), std::string::npos) << said << " in " << s.source;
}

TEST(HostTimeFile, TheCpusTheCalibrationRanOnAreSaidWhenRecorded) {
  std::string pinned = kGood;
  pinned.insert(pinned.find("\"torch\""), R"x("cpus": "2-5 (taskset)", )x");
  EXPECT_NE(parse_host_time_calibration(pinned, "cal.json").source.find("CPUs 2-5 (taskset)"),
            std::string::npos);
  EXPECT_EQ(parse_host_time_calibration(kGood, "cal.json").source.find("CPUs"), std::string::npos);
}

TEST(HostTimeFile, AFileOnDiskIsReadByItsPath) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "collreplay_host_time_test.json";
  std::ofstream(path) << kGood;
  const HostTimeSetting s = host_time_setting(path.string());
  EXPECT_DOUBLE_EQ(s.per_launch.backward_us, 30.25);
  std::filesystem::remove(path);
}

void expect_one_line_usage_error(const std::string& text, const std::string& says) {
  try {
    parse_host_time_calibration(text, "bad.json");
    ADD_FAILURE() << "accepted: " << text;
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_NE(what.find("bad.json"), std::string::npos) << what;
    EXPECT_NE(what.find(says), std::string::npos) << what;
  }
}

TEST(HostTimeFile, AMalformedFileIsOneLineNamingIt) {
  expect_one_line_usage_error("{not json", "not a JSON object");
  expect_one_line_usage_error("[1, 2]", "not a JSON object");
  expect_one_line_usage_error(R"({"forward_us": 1, "backward_us": 2, "optimizer_loop_us": 3})",
                              "optimizer_multi_us");
  expect_one_line_usage_error(
      R"({"forward_us": "41", "backward_us": 2, "optimizer_loop_us": 3, "optimizer_multi_us": 4})",
      "forward_us");
  expect_one_line_usage_error(
      R"({"forward_us": -1, "backward_us": 2, "optimizer_loop_us": 3, "optimizer_multi_us": 4})",
      ">= 0");
}

TEST(HostTimeFile, UnknownValuesAndAbsentFilesAreUsageErrors) {
  EXPECT_THROW(host_time_setting("eagerly"), UsageError);
  EXPECT_THROW(host_time_setting("/nonexistent/cal.json"), UsageError);
}

TEST(HostTimeFile, TheDefaultsSayWhichMachineAndTorchTheyComeFrom) {
  const HostTimeSetting s = host_time_setting("eager");
  EXPECT_DOUBLE_EQ(s.per_launch.forward_us, kEagerHostTime.forward_us);
  for (const char* said : {"H100", "torch 2.11", "CPU", "--host-time calibrate"})
    EXPECT_NE(s.source.find(said), std::string::npos) << said << " in " << s.source;
  EXPECT_DOUBLE_EQ(host_time_setting("none").per_launch.forward_us, 0);
}

}  // namespace
}  // namespace collreplay
