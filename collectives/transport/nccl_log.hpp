// Which transport NCCL really chose, read from NCCL's own INFO log: its channel lines say
// "... 0[0] -> 1[1] via P2P/CUMEM/read", "via SHM/direct/direct", "via NET/Socket/0" or
// "via NET/IB/0/GDRDMA". NCCL has no API that returns the transport, and the "Using network X"
// line names only the network plugin, not the path, so the channel lines are the evidence users
// already trust. Host code only (no CUDA), so the parsing is unit-tested everywhere.
//
// How the log is reached (NCCL reads its logging settings once per process, at its first log
// call, so this is decided once per process, before the first NCCL call):
//   - NCCL_DEBUG and NCCL_DEBUG_FILE both unset: we set NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT
//     (INIT,TUNING when the job spans nodes, where the algorithm matters; unless set) and
//     NCCL_DEBUG_FILE to a private file in $TMPDIR (or /tmp), which we unlink as soon as it is
//     open. These change only where NCCL writes its log, never how it communicates; by default NCCL
//     prints nothing, so the user sees no difference.
//   - NCCL_DEBUG_FILE set by the user (with NCCL_DEBUG=INFO or TRACE): we read that file (%h and
//     %p expanded as NCCL does).
//   - anything else (e.g. NCCL_DEBUG=INFO to stdout): the log cannot be read; the transport is
//     inferred from the environment and the topology and labelled "(inferred)".
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace collreplay {

// Kinds of path named by the channel lines of `log_text`, sorted, without duplicates:
// "p2p", "shm", "socket", "ib", "collnet", or the lower-cased name of another net plugin.
std::vector<std::string> nccl_log_path_kinds(std::string_view log_text);

// One name for Communicator::transport() from the kinds: the network kinds when any is present
// (between nodes the network is what was asked for; hops inside a node are always local),
// else the local kinds, "p2p" renamed to `p2p_name` ("nvlink" or "pcie"); several kinds are
// joined with '+' ("nvlink+shm") so that a mixed job never passes for a pure one. Empty when
// `kinds` is empty.
std::string nccl_transport_name(const std::vector<std::string>& kinds, const std::string& p2p_name);

// The algorithm NCCL chose for each collective, from its tuning lines (NCCL_DEBUG_SUBSYS
// TUNING; written by each communicator's rank 0): "AllGather: 1048576 Bytes -> Algo PAT proto
// SIMPLE channel{Lo..Hi}={0..1}". Maps the collective ("AllGather") to the algorithms seen, sorted
// and joined with '+' ("RING" or "PAT+RING" when sizes differ). Empty without tuning lines.
std::map<std::string, std::string> nccl_log_algorithms(std::string_view log_text);

// The interfaces of the network NCCL uses, from "Using network Socket" and its device line:
// "NET/Socket : Using [0]eth0:10.0.0.1<0> [1]ib0:10.1.0.1<0>" gives {"eth0", "ib0"};
// "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:..." gives
// {"mlx5_0:1", "mlx5_1:1"}. Empty when the log names no network or no devices.
std::vector<std::string> nccl_log_net_interfaces(std::string_view log_text);

// Expands NCCL_DEBUG_FILE's %h (host name) and %p (pid).
std::string expand_nccl_debug_file(std::string_view pattern, std::string_view host, long pid);

// A [begin, end) byte range of the log written while one communicator was in a call.
struct NcclLogSpan {
  std::uint64_t begin = 0, end = 0;
};

// The process's NCCL log, readable while NCCL writes it. One per process because NCCL's logging
// is configured once per process (this is why it is the one function-local static).
class NcclLogTap {
 public:
  // Configures the environment on first use; call before the process's first NCCL call.
  // `with_tuning` (first call only) adds NCCL's TUNING lines to a log we choose: one line per
  // collective on rank 0, which is what names the algorithm (nccl_log_algorithms).
  static NcclLogTap& for_process(bool with_tuning = false);

  // True when the log can be read; otherwise why_unreadable() says why.
  bool readable();
  const std::string& why_unreadable() const { return why_unreadable_; }
  // Current size of the log in bytes (0 when unreadable).
  std::uint64_t size_bytes();
  // The text of the spans.
  std::string read(const std::vector<NcclLogSpan>& spans);

  NcclLogTap(const NcclLogTap&) = delete;
  NcclLogTap& operator=(const NcclLogTap&) = delete;

 private:
  explicit NcclLogTap(bool with_tuning);
  ~NcclLogTap();
  bool try_open();

  std::string path_;
  bool ours_ = false;  // we chose the file, so we unlink it once open
  int fd_ = -1;
  std::string why_unreadable_;
};

}  // namespace collreplay
