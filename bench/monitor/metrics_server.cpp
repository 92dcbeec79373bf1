#include "bench/monitor/metrics_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/errors.hpp"

namespace collreplay {
namespace {

constexpr int kPollMs = 200;

void send_all(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // the scraper went away: nothing to do
    sent += static_cast<std::size_t>(n);
  }
}

}  // namespace

MetricsServer::MetricsServer(const std::string& address, int port,
                             std::function<std::string()> render)
    : render_(std::move(render)) {
  const std::string where = address + ":" + std::to_string(port);
  if (port < 1 || port > 65535)
    throw UsageError("--metrics-port " + std::to_string(port) + " is not a port (1-65535)");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1)
    throw UsageError("--metrics-address '" + address + "' is not an IPv4 address");
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0)
    throw RuntimeError("metrics server: socket(): " + std::string(std::strerror(errno)));
  const int yes = 1;
  // Lets a restarted run take the port out of TIME_WAIT; a live listener still makes bind fail.
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 8) != 0) {
    const int error = errno;
    ::close(listen_fd_);
    throw UsageError("--metrics-port: cannot listen on " + where + ": " + std::strerror(error) +
                     (error == EADDRINUSE ? " (another program has it; pick another port)" : ""));
  }
  thread_ = std::thread([this] { serve(); });
}

MetricsServer::~MetricsServer() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  ::close(listen_fd_);
}

void MetricsServer::serve() {
  while (!stopping_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, kPollMs) <= 0) continue;
    const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    answer(client);
    ::close(client);
  }
}

void MetricsServer::answer(int client) {
  // A scraper that connects and says nothing must not stall the next scrape.
  timeval timeout{1, 0};
  ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string request;
  char buffer[1024];
  while (request.find("\r\n\r\n") == std::string::npos && request.size() < 16384) {
    const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    request.append(buffer, static_cast<std::size_t>(n));
  }
  const bool wanted =
      request.rfind("GET /metrics ", 0) == 0 || request.rfind("GET /metrics?", 0) == 0;
  const std::string body = wanted ? render_() : "not found: try /metrics\n";
  send_all(client, std::string(wanted ? "HTTP/1.1 200 OK" : "HTTP/1.1 404 Not Found") +
                       "\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                       "Content-Length: " +
                       std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
}

}  // namespace collreplay
