// Counters during a run and their Prometheus exposition, end to end: counter records and
// per-size fabric bytes in the results, bad monitor input refused before anything runs, and the
// real `prometheus` server scraping a running benchmark's /metrics and answering for its busbw.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/loopback.hpp"
#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

using test_support::free_port;
using test_support::http_get;

namespace fs = std::filesystem;
using namespace cli_test;

// A command started in the background in its own process group, ended with the group.
class Background {
 public:
  explicit Background(const std::string& command) {
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  ~Background() {
    if (pid_ > 0) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

 private:
  pid_t pid_ = -1;
};

class MonitorCli : public ScratchDirTest {};

TEST_F(MonitorCli, CountersAndFabricBytesLandInTheResults) {
  const fs::path out = dir_ / "ag.jsonl";
  const Outcome o =
      run(mpirun_command() + " -np 2 " + (bin_dir() / "all_gather_perf").string() +
          " --backend mpi -b 1M -e 4M -f 4 -n 10 --monitor-interval 0.1 --out " + out.string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::ifstream in(out);
  int perf = 0, counters = 0;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json r = nlohmann::json::parse(line);
    if (r.value("record", "") == "counters") {
      ++counters;
      EXPECT_TRUE(r.contains("t_s") && r.contains("host") && r.contains("source")) << line;
      EXPECT_TRUE(r.contains("run")) << line;
    } else if (r.value("record", "") == "perf") {
      ++perf;
      EXPECT_TRUE(r.contains("fabric_tx_bytes") && r.contains("fabric_rx_bytes")) << line;
    }
  }
  EXPECT_EQ(perf, 4);  // 1 MiB and 4 MiB, out of place and in place
  EXPECT_GT(counters, 0);
}

TEST_F(MonitorCli, BusyMetricsPortIsAUsageError) {
  const int port = free_port();
  const int holder = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  ASSERT_EQ(::bind(holder, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(holder, 1), 0);
  const fs::path out = dir_ / "ag.jsonl";
  const Outcome o =
      run((bin_dir() / "all_gather_perf").string() + " --backend mpi -b 1K -e 1K --metrics-port " +
          std::to_string(port) + " --out " + out.string());
  ::close(holder);
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_NE(o.err.find(std::to_string(port)), std::string::npos) << o.err;
  EXPECT_EQ(o.out.find("#       size"), std::string::npos) << "it measured: " << o.out;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(MonitorCli, UnreadableSysfsRootIsAUsageError) {
  const Outcome o = run((bin_dir() / "all_gather_perf").string() +
                        " --backend mpi -b 1K -e 1K --monitor-interval 1 --sysfs-root " +
                        (dir_ / "no-such-sysfs").string());
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("--sysfs-root"), std::string::npos) << o.err;
}

TEST_F(MonitorCli, PrometheusScrapesTheBusbwOfARunningBenchmark) {
  if (std::system("command -v prometheus >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "prometheus is not installed (make deps installs it)";
  const int metrics_port = free_port(), web_port = free_port();
  std::ofstream(dir_ / "prometheus.yml")
      << "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: collreplay\n"
      << "    static_configs:\n      - targets: ['127.0.0.1:" << metrics_port << "']\n";
  // Many sizes, the big ones slow on 2 ranks: the gauges appear early and the run lasts (tens of
  // seconds here; the test ends it once Prometheus has answered).
  const Background bench(mpirun_command() + " -np 2 " + (bin_dir() / "all_gather_perf").string() +
                         " --backend mpi -b 64K -e 256M -f 2 -n 200 --timeout 120 --metrics-port " +
                         std::to_string(metrics_port) + " >" + (dir_ / "bench.log").string() +
                         " 2>&1");
  const Background server("prometheus --config.file=" + (dir_ / "prometheus.yml").string() +
                          " --storage.tsdb.path=" + (dir_ / "tsdb").string() +
                          " --web.listen-address=127.0.0.1:" + std::to_string(web_port) + " >" +
                          (dir_ / "prometheus.log").string() + " 2>&1");
  std::string answer;
  bool found = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!found && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    answer = http_get(web_port, "/api/v1/query?query=collreplay_busbw_gbps");
    const auto body = answer.find("\r\n\r\n");
    if (body == std::string::npos) continue;
    const nlohmann::json reply = nlohmann::json::parse(answer.substr(body + 4), nullptr, false);
    found = !reply.is_discarded() && reply.value("status", "") == "success" &&
            !reply["data"]["result"].empty();
    if (found) {
      const nlohmann::json& series = reply["data"]["result"][0];
      EXPECT_EQ(series["metric"]["op"], "all_gather") << series.dump();
      EXPECT_EQ(series["metric"]["job"], "collreplay") << series.dump();
      EXPECT_GT(std::stod(series["value"][1].get<std::string>()), 0.0) << series.dump();
    }
  }
  EXPECT_TRUE(found) << "prometheus never returned collreplay_busbw_gbps; last answer: " << answer
                     << "\nbenchmark: " << slurp(dir_ / "bench.log")
                     << "\nprometheus: " << slurp(dir_ / "prometheus.log");
}

}  // namespace
}  // namespace collreplay
