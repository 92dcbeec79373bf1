// A minimal HTTP endpoint for Prometheus to scrape: answers GET /metrics with the text that
// `render` returns at that moment, 404 otherwise, one connection at a time on its own thread.
// The socket is bound in the constructor, so a busy port is a UsageError before anything runs.
#pragma once
#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace collreplay {

class MetricsServer {
 public:
  MetricsServer(const std::string& address, int port, std::function<std::string()> render);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

 private:
  void serve();
  void answer(int client);

  int listen_fd_ = -1;
  std::function<std::string()> render_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace collreplay
