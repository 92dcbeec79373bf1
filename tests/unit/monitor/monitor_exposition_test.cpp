// Prometheus text format and the /metrics endpoint: escaping, one HELP/TYPE per family, a real
// HTTP GET over loopback, 404 elsewhere, and a busy port refused with a usage error.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "bench/monitor/metrics_server.hpp"
#include "bench/monitor/prometheus_text.hpp"
#include "common/errors.hpp"
#include "tests/support/loopback.hpp"

namespace collreplay {
namespace {

using test_support::free_port;
using test_support::http_get;

// A port nobody listens on now: bind to 0 and ask.

TEST(PrometheusText, EscapesLabelValues) {
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

TEST(PrometheusText, OneHelpAndTypePerFamily) {
  ExpositionInput input;
  input.host = "n1";
  input.rank = 0;
  input.fabric.devices = {{"net", "eth0", 10, 20, {}}, {"ib", "mlx5_0:1", 40, 80, {}}};
  input.gauges = {{"collreplay_step_ms", "step time", {}, 391.1}};
  const std::string text = prometheus_text(input);
  std::size_t helps = 0;
  for (std::size_t at = 0;
       (at = text.find("# HELP collreplay_fabric_transmit_bytes_total", at)) != std::string::npos;
       ++at)
    ++helps;
  EXPECT_EQ(helps, 1u) << text;
  EXPECT_NE(text.find("collreplay_fabric_transmit_bytes_total{device=\"mlx5_0:1\",host=\"n1\",rank="
                      "\"0\",source=\"ib\"} 40"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("collreplay_step_ms{host=\"n1\",rank=\"0\"} 391.1"), std::string::npos)
      << text;
}

TEST(MetricsServer, ServesMetricsAndRefusesOtherPaths) {
  const int port = free_port();
  MetricsServer server("127.0.0.1", port, [] { return std::string("collreplay_up 1\n"); });
  const std::string ok = http_get(port, "/metrics");
  EXPECT_EQ(ok.rfind("HTTP/1.1 200 OK", 0), 0u) << ok;
  EXPECT_NE(ok.find("text/plain; version=0.0.4"), std::string::npos);
  EXPECT_NE(ok.find("\r\n\r\ncollreplay_up 1\n"), std::string::npos) << ok;
  EXPECT_EQ(http_get(port, "/").rfind("HTTP/1.1 404", 0), 0u);
}

TEST(MetricsServer, BusyPortIsAUsageError) {
  const int port = free_port();
  MetricsServer first("127.0.0.1", port, [] { return std::string(); });
  try {
    MetricsServer second("127.0.0.1", port, [] { return std::string(); });
    FAIL() << "a second server took a busy port";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(port)), std::string::npos) << e.what();
  }
  EXPECT_THROW(MetricsServer("not-an-address", port + 1, [] { return std::string(); }), UsageError);
}

}  // namespace
}  // namespace collreplay
