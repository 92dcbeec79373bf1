#include "collectives/transport/nccl_log.hpp"
#include "common/host_identity.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

namespace collreplay {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The path kind of one "via X/Y/..." clause, empty when it is not a channel transport.
std::string kind_of_clause(std::string_view clause) {
  const std::size_t slash = clause.find('/');
  const std::string_view head = clause.substr(0, slash);
  if (head == "P2P") return "p2p";
  if (head == "SHM") return "shm";
  if (head == "CollNet") return "collnet";
  if (head != "NET" || slash == std::string_view::npos) return {};
  std::string_view plugin = clause.substr(slash + 1);
  plugin = plugin.substr(0, plugin.find('/'));
  // NCCL's own IB transport is "IB"; the external IB plugin calls itself "IBext", "IBext_v8"...
  if (plugin.substr(0, 2) == "IB") return "ib";
  if (plugin == "Socket") return "socket";
  return plugin.empty() ? std::string("net") : lower(plugin);
}

bool is_network(const std::string& kind) { return kind != "p2p" && kind != "shm"; }

template <typename Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    fn(text.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace

std::vector<std::string> nccl_log_path_kinds(std::string_view log_text) {
  std::set<std::string> kinds;
  std::size_t line_start = 0;
  while (line_start < log_text.size()) {
    std::size_t line_end = log_text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = log_text.size();
    const std::string_view line = log_text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    // Channel lines only: "Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0".
    if (line.find("Channel") == std::string_view::npos) continue;
    const std::size_t via = line.find(" via ");
    if (via == std::string_view::npos) continue;
    std::string_view clause = line.substr(via + 5);
    // Plugin names may contain spaces ("NET/AWS Libfabric/0"), so cut at the next '/' group end.
    std::string kind = kind_of_clause(clause);
    if (!kind.empty()) kinds.insert(kind);
  }
  return {kinds.begin(), kinds.end()};
}

std::string nccl_transport_name(const std::vector<std::string>& kinds,
                                const std::string& p2p_name) {
  const bool any_network = std::any_of(kinds.begin(), kinds.end(), is_network);
  std::string name;
  for (const std::string& kind : kinds) {
    if (any_network != is_network(kind)) continue;
    if (!name.empty()) name += '+';
    name += kind == "p2p" ? p2p_name : kind;
  }
  return name;
}

std::map<std::string, std::string> nccl_log_algorithms(std::string_view log_text) {
  std::map<std::string, std::set<std::string>> seen;
  for_each_line(log_text, [&](std::string_view line) {
    // "... NCCL INFO AllGather: 1048576 Bytes -> Algo PAT proto SIMPLE channel{Lo..Hi}={0..1}"
    const std::size_t arrow = line.find(" Bytes -> Algo ");
    if (arrow == std::string_view::npos) return;
    const std::size_t colon = line.rfind(": ", arrow);
    if (colon == std::string_view::npos) return;
    const std::size_t func_start = line.rfind(' ', colon);
    const std::string_view func =
        line.substr(func_start == std::string_view::npos ? 0 : func_start + 1,
                    colon - (func_start == std::string_view::npos ? 0 : func_start + 1));
    std::string_view algo = line.substr(arrow + 15);
    algo = algo.substr(0, algo.find(' '));
    if (!func.empty() && !algo.empty()) {
      std::string upper(algo);
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      seen[std::string(func)].insert(upper);
    }
  });
  std::map<std::string, std::string> out;
  for (const auto& [func, algos] : seen) {
    std::string joined;
    for (const std::string& a : algos) joined += (joined.empty() ? "" : "+") + a;
    out[func] = joined;
  }
  return out;
}

std::vector<std::string> nccl_log_net_interfaces(std::string_view log_text) {
  std::string network;
  std::map<std::string, std::vector<std::string>> devices;  // by network name
  for_each_line(log_text, [&](std::string_view line) {
    if (const std::size_t at = line.find("Using network "); at != std::string_view::npos) {
      std::string_view name = line.substr(at + 14);
      network = std::string(name.substr(0, name.find_first_of(" \r")));
      return;
    }
    // "NET/Socket : Using [0]eth0:10.0.0.1<0> [1]..." (some versions write "NET/Socket: Using")
    const std::size_t net = line.find("NET/");
    const std::size_t using_at = line.find("Using [");
    if (net == std::string_view::npos || using_at == std::string_view::npos || using_at < net)
      return;
    std::string_view name = line.substr(net + 4, using_at - net - 4);
    while (!name.empty() && (name.back() == ' ' || name.back() == ':')) name.remove_suffix(1);
    std::string_view list = line.substr(using_at + 6);
    list = list.substr(0, list.find(';'));  // "; OOB eth0:..." is the bootstrap, not the data path
    const bool socket = name == "Socket";
    std::vector<std::string>& found = devices[std::string(name)];
    found.clear();
    for (std::size_t at = list.find('['); at != std::string_view::npos;
         at = list.find('[', at + 1)) {
      const std::size_t close = list.find(']', at);
      if (close == std::string_view::npos) break;
      std::string_view device = list.substr(close + 1);
      device = device.substr(0, device.find_first_of(socket ? ": " : "/ "));
      if (!device.empty() && !std::isdigit(static_cast<unsigned char>(list[at + 1]))) continue;
      if (!device.empty()) found.emplace_back(device);
    }
  });
  if (network.empty()) return {};
  // The plugin line may call the network "IBext_v8" while the device line says "NET/IBext_v8".
  auto it = devices.find(network);
  return it == devices.end() ? std::vector<std::string>{} : it->second;
}

std::string expand_nccl_debug_file(std::string_view pattern, std::string_view host, long pid) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      if (pattern[i + 1] == 'h') {
        out += host;
        ++i;
        continue;
      }
      if (pattern[i + 1] == 'p') {
        out += std::to_string(pid);
        ++i;
        continue;
      }
      if (pattern[i + 1] == '%') {
        out += '%';
        ++i;
        continue;
      }
    }
    out += pattern[i];
  }
  return out;
}

NcclLogTap& NcclLogTap::for_process(bool with_tuning) {
  static NcclLogTap tap(with_tuning);
  return tap;
}

NcclLogTap::NcclLogTap(bool with_tuning) {
  const char* level = std::getenv("NCCL_DEBUG");
  const char* file = std::getenv("NCCL_DEBUG_FILE");
  if (file && *file) {
    const std::string lvl = lower(level ? level : "");
    if (lvl != "info" && lvl != "trace") {
      why_unreadable_ =
          "NCCL_DEBUG_FILE is set but NCCL_DEBUG is not INFO, so NCCL logs no channels";
      return;
    }
    path_ = expand_nccl_debug_file(file, host_name(), static_cast<long>(getpid()));
    return;
  }
  if (level && *level) {
    why_unreadable_ =
        "NCCL_DEBUG is set without NCCL_DEBUG_FILE, so NCCL's log goes where we cannot read it "
        "(add NCCL_DEBUG_FILE=/tmp/nccl.%h.%p.log to have the transport observed)";
    return;
  }
  const char* tmp = std::getenv("TMPDIR");
  path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/collreplay-nccl-" + host_name() + "-" +
          std::to_string(getpid()) + ".log";
  ours_ = true;
  // Logging settings only: they decide where NCCL writes, not how it communicates.
  setenv("NCCL_DEBUG", "INFO", 1);
  setenv("NCCL_DEBUG_SUBSYS", with_tuning ? "INIT,TUNING" : "INIT", 0);
  setenv("NCCL_DEBUG_FILE", path_.c_str(), 1);
}

NcclLogTap::~NcclLogTap() {
  if (fd_ >= 0) close(fd_);
}

// NCCL creates its log file at its first log call, so the file may appear late: retry until then.
bool NcclLogTap::try_open() {
  if (fd_ >= 0) return true;
  if (path_.empty()) return false;
  fd_ = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    why_unreadable_ = "NCCL's log " + path_ + " is not there (yet)";
    return false;
  }
  why_unreadable_.clear();
  // Our private file disappears from /tmp at once; NCCL and we keep writing and reading it.
  if (ours_) unlink(path_.c_str());
  return true;
}

bool NcclLogTap::readable() { return try_open(); }

std::uint64_t NcclLogTap::size_bytes() {
  struct stat st {};
  if (!try_open() || fstat(fd_, &st) != 0) return 0;
  return static_cast<std::uint64_t>(st.st_size);
}

std::string NcclLogTap::read(const std::vector<NcclLogSpan>& spans) {
  std::string text;
  if (!try_open()) return text;
  for (const NcclLogSpan& span : spans) {
    std::string chunk(span.end - span.begin, '\0');
    const ssize_t got = pread(fd_, chunk.data(), chunk.size(), static_cast<off_t>(span.begin));
    if (got > 0) text.append(chunk.data(), static_cast<std::size_t>(got));
    text += '\n';
  }
  return text;
}

}  // namespace collreplay
