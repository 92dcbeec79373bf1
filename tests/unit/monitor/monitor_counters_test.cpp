// The monitor's counters from a fake sysfs tree: bytes per NIC and per InfiniBand port (4-byte
// words), rates between samples, vanishing files reported not fatal, bad options refused.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bench/monitor/counters.hpp"
#include "bench/monitor/monitor_session.hpp"
#include "bench/monitor/sampler.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;

class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("collreplay-sysfs-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    write("class/net/lo/statistics/tx_bytes", 999);
    write("class/net/lo/statistics/rx_bytes", 999);
    set_nic("eth0", 1000, 2000);
    write("class/net/eth0/statistics/rx_dropped", 3);
    set_ib("mlx5_0", 1, 100, 200);
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& relative, std::uint64_t value) {
    const fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << value << "\n";
  }
  void set_nic(const std::string& nic, std::uint64_t tx, std::uint64_t rx) {
    write("class/net/" + nic + "/statistics/tx_bytes", tx);
    write("class/net/" + nic + "/statistics/rx_bytes", rx);
  }
  void set_ib(const std::string& hca, int port, std::uint64_t tx_words, std::uint64_t rx_words) {
    const std::string dir =
        "class/infiniband/" + hca + "/ports/" + std::to_string(port) + "/counters/";
    write(dir + "port_xmit_data", tx_words);
    write(dir + "port_rcv_data", rx_words);
  }

  fs::path root_;
};

TEST_F(FakeSysfs, ReadsNicsAndIbPortsButNotLoopback) {
  const CounterSnapshot s = read_fabric_counters(root_.string());
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].source, "net");
  EXPECT_EQ(s.devices[0].device, "eth0");
  EXPECT_EQ(s.devices[0].tx_bytes, 1000u);
  EXPECT_EQ(s.devices[0].rx_bytes, 2000u);
  EXPECT_EQ(s.devices[0].other.at("rx_dropped"), 3u);
  EXPECT_EQ(s.devices[1].source, "ib");
  EXPECT_EQ(s.devices[1].device, "mlx5_0:1");
  EXPECT_EQ(s.devices[1].tx_bytes, 400u);  // 100 words of 4 bytes
  EXPECT_EQ(s.devices[1].rx_bytes, 800u);
  EXPECT_TRUE(s.problems.empty());
}

TEST_F(FakeSysfs, PrefersTheWideExtCounters) {
  write("class/infiniband/mlx5_0/ports/1/counters/port_xmit_data_ext", 5000000000ull);
  write("class/infiniband/mlx5_0/ports/1/counters/port_rcv_data_ext", 7);
  const CounterSnapshot s = read_fabric_counters(root_.string());
  EXPECT_EQ(s.devices[1].tx_bytes, 20000000000ull);
  EXPECT_EQ(s.devices[1].rx_bytes, 28u);
}

TEST_F(FakeSysfs, AVanishedCounterIsAProblemNotAFailure) {
  fs::remove(root_ / "class/net/eth0/statistics/tx_bytes");
  const CounterSnapshot s = read_fabric_counters(root_.string());
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].device, "mlx5_0:1");
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_NE(s.problems[0].find("eth0"), std::string::npos);
}

TEST_F(FakeSysfs, SamplerRecordsBytesAndRatesBetweenSamples) {
  SamplerSettings settings;
  settings.interval_s = 0.1;
  settings.sysfs_root = root_.string();
  settings.gpu = false;
  settings.host = "node7";
  settings.rank = 3;
  Sampler sampler(settings);
  set_nic("eth0", 1000 + 500000, 2000);
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  fs::remove_all(root_ / "class/net/eth0");  // the NIC vanishes mid-run
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  sampler.stop();
  std::uint64_t eth0_tx = 0;
  for (const nlohmann::json& r : sampler.records()) {
    EXPECT_EQ(r["record"], "counters");
    EXPECT_EQ(r["host"], "node7");
    EXPECT_EQ(r["rank"], 3);
    if (r["device"] == "eth0") {
      eth0_tx += r["tx_bytes"].get<std::uint64_t>();
      EXPECT_GE(r["tx_bytes_per_s"].get<double>(), 0.0);
    }
  }
  EXPECT_EQ(eth0_tx, 500000u);  // every byte once, whatever the sample boundaries
  ASSERT_FALSE(sampler.problems().empty());
  EXPECT_NE(sampler.problems()[0].find("eth0"), std::string::npos);
}

TEST_F(FakeSysfs, SessionRefusesBadOptionsBeforeStarting) {
  MonitorOptions options;
  options.sysfs_root = root_.string();
  options.interval_s = 0.05;
  EXPECT_THROW(MonitorSession(options, "h", 0, 0, false), UsageError);
  options.interval_s = 1;
  options.sysfs_root = (root_ / "nowhere").string();
  EXPECT_THROW(MonitorSession(options, "h", 0, 0, false), UsageError);
  options.sysfs_root = root_.string();
  options.metrics_file = (root_ / "no/such/dir/metrics.prom").string();
  EXPECT_THROW(MonitorSession(options, "h", 0, 0, false), UsageError);
}

TEST_F(FakeSysfs, MetricsFileHoldsTheExposition) {
  MonitorOptions options;
  options.sysfs_root = root_.string();
  options.interval_s = 0.1;
  options.metrics_file = (root_ / "collreplay_%r.prom").string();
  MonitorSession session(options, "node7", 5, 0, false);
  session.board().set("collreplay_busbw_gbps", "bus bandwidth", {{"op", "all_gather"}}, 12.5);
  const auto records = session.finish();
  std::ifstream in(root_ / "collreplay_5.prom");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("# TYPE collreplay_busbw_gbps gauge"), std::string::npos) << text;
  EXPECT_NE(text.find("collreplay_busbw_gbps{host=\"node7\",op=\"all_gather\",rank=\"5\"} 12.5"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("collreplay_fabric_transmit_bytes_total{device=\"eth0\",host=\"node7\",rank="
                      "\"5\",source=\"net\"} 1000"),
            std::string::npos)
      << text;
  EXPECT_FALSE(fs::exists(root_ / "collreplay_5.prom.tmp"));
}

}  // namespace
}  // namespace collreplay
