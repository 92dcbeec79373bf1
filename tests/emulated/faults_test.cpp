// Faults on the emulated cluster (sweeps/emulate/cluster): during a long MPI all-gather on 2
// emulated nodes, node 1's link is cut, or rank 1 is killed (SIGKILL) or stopped (SIGSTOP).
// Each run must end within --timeout + 10 s; a cut link or a stopped peer ends with exit 4 and a
// message naming the op, its size and its group; records measured before the fault are kept
// (the results file, or its .partial twin); the cluster tears down clean.
// Needs root and the cluster script; otherwise every test skips and says why.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;
using namespace cli_test;
using Clock = std::chrono::steady_clock;

constexpr int kTimeoutS = 8;    // the executable's --timeout
constexpr int kGraceS = 10;     // what the issue allows beyond it
constexpr int kMeasuringS = 6;  // let the first sizes finish before the fault

fs::path repo_root() { return (bin_dir() / ".." / "..").lexically_normal(); }
fs::path cluster_script() { return repo_root() / "sweeps" / "emulate" / "cluster"; }

std::string why_not_runnable() {
  if (!fs::exists(cluster_script())) return cluster_script().string() + " is absent";
  if (geteuid() != 0) return "the emulated cluster needs root (network namespaces)";
  return "";
}

// Whole /proc file as text (cmdline and environ are NUL-separated).
std::string proc_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class Faults : public ScratchDirTest {
 protected:
  void SetUp() override {
    if (const std::string why = why_not_runnable(); !why.empty()) GTEST_SKIP() << why;
    ScratchDirTest::SetUp();
    prefix_ = "crf" + std::to_string(getpid() % 100000);
    state_ = dir_ / "cluster";
    const Outcome up = run(cluster("up --nodes 2"));
    ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
    up_ = true;
  }
  void TearDown() override {
    if (up_) {
      const Outcome down = run(cluster("down"));
      EXPECT_EQ(down.exit_code, 0) << down.err;
      const Outcome left = run("ip netns list | grep '^" + prefix_ + "' || true");
      EXPECT_EQ(left.out, "") << "namespaces left behind";
    }
    if (!dir_.empty()) ScratchDirTest::TearDown();
  }

  std::string cluster(const std::string& args) {
    const std::string command = args.substr(0, args.find(' '));
    return cluster_script().string() + " " + command + " --state " + state_.string() +
           " --prefix " + prefix_ + args.substr(command.size());
  }
  std::string cluster_run(int node, const std::string& command) {
    return cluster_script().string() + " run --state " + state_.string() + " --node " +
           std::to_string(node) + " -- " + command;
  }

  // Starts the measured job in the background; its output goes to job.out / job.err.
  void start_job() {
    out_ = dir_ / "faults.jsonl";
    const std::string job =
        "mpirun -np 2 " + (bin_dir() / "all_gather_perf").string() +
        " --backend mpi --transport socket --ifname eth0 --emulated --timeout " +
        std::to_string(kTimeoutS) + " -b 64K -e 256M -f 2 -n 20 -w 1 --out " + out_.string();
    const std::string command = cluster_run(0, job) + " >" + (dir_ / "job.out").string() + " 2>" +
                                (dir_ / "job.err").string() + " </dev/null";
    job_ = fork();
    ASSERT_GE(job_, 0);
    if (job_ == 0) {
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    std::this_thread::sleep_for(std::chrono::seconds(kMeasuringS));
  }

  // The pid of world rank `rank` of our job: its command line names our results file.
  pid_t rank_pid(int rank) {
    const std::string wanted = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + '\0';
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      if (proc_file(entry.path() / "cmdline").find(out_.string()) == std::string::npos) continue;
      if (proc_file(entry.path() / "environ").find(wanted) != std::string::npos)
        return static_cast<pid_t>(std::stoi(name));
    }
    return -1;
  }

  // Waits for the job; its exit code, or -1 when it outlived the allowance (then it is killed).
  int wait_job(Clock::time_point fault_at) {
    const auto limit = fault_at + std::chrono::seconds(kTimeoutS + kGraceS);
    int status = 0;
    while (Clock::now() < limit) {
      if (waitpid(job_, &status, WNOHANG) == job_) {
        job_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    kill(job_, SIGKILL);
    waitpid(job_, &status, 0);
    job_ = -1;
    if (const pid_t stuck = rank_pid(1); stuck > 0) kill(stuck, SIGKILL);
    if (const pid_t stuck = rank_pid(0); stuck > 0) kill(stuck, SIGKILL);
    return -1;
  }

  // Records measured before the fault: in the results file or its .partial twin.
  int kept_records() {
    int records = 0;
    for (const fs::path& path : {out_, fs::path(out_.string() + ".partial")}) {
      std::ifstream in(path);
      std::string line;
      while (std::getline(in, line)) {
        const nlohmann::json record = nlohmann::json::parse(line);
        EXPECT_EQ(record["run"]["emulated"], true);
        ++records;
      }
    }
    return records;
  }

  std::string job_err() { return slurp(dir_ / "job.err") + slurp(dir_ / "job.out"); }

  fs::path state_, out_;
  std::string prefix_;
  pid_t job_ = -1;
  bool up_ = false;
};

// Exit 4 and a message naming the op (all_gather), a size and the group.
void expect_named_timeout(int code, const std::string& err) {
  EXPECT_EQ(code, 4) << err;
  EXPECT_NE(err.find("all_gather of"), std::string::npos) << err;
  EXPECT_NE(err.find("world group of 2 ranks"), std::string::npos) << err;
}

TEST_F(Faults, LinkCutEndsWithTimeoutNamingTheOp) {
  // Rank 0 times out after --timeout and names the op; mpirun's abort then cannot reach the
  // daemon behind the cut (its kill message waits in TCP retransmission). The launch agent ends
  // as ssh does on a dead connection once the link has been down for 10 s (rsh-agent), which is
  // what lets mpirun finish.
  start_job();
  const Outcome cut = run(cluster_run(1, "ip link set eth0 down"));
  ASSERT_EQ(cut.exit_code, 0) << cut.err;
  const int code = wait_job(Clock::now());
  ASSERT_NE(code, -1) << "still running " << kTimeoutS + kGraceS << " s after the cut\n"
                      << job_err();
  expect_named_timeout(code, job_err());
  EXPECT_GT(kept_records(), 0) << job_err();
}

// The stop may land inside a timed op, a barrier or the per-size exchange of times: each is
// watched by --timeout.
TEST_F(Faults, StoppedPeerEndsWithTimeoutNamingTheOp) {
  start_job();
  const pid_t peer = rank_pid(1);
  ASSERT_GT(peer, 0) << "rank 1 not found\n" << job_err();
  ASSERT_EQ(kill(peer, SIGSTOP), 0);
  const int code = wait_job(Clock::now());
  kill(peer, SIGCONT);  // never leave a stopped process behind
  ASSERT_NE(code, -1) << "still running " << kTimeoutS + kGraceS << " s after SIGSTOP\n"
                      << job_err();
  expect_named_timeout(code, job_err());
  EXPECT_GT(kept_records(), 0) << job_err();
}

// A killed rank is noticed by the launcher first: mpirun ends the job and names the rank; the
// run must still end in time, with a failure code, and keep what it measured.
TEST_F(Faults, KilledPeerEndsTheJobInTime) {
  start_job();
  const pid_t peer = rank_pid(1);
  ASSERT_GT(peer, 0) << "rank 1 not found\n" << job_err();
  ASSERT_EQ(kill(peer, SIGKILL), 0);
  const int code = wait_job(Clock::now());
  ASSERT_NE(code, -1) << "still running " << kTimeoutS + kGraceS << " s after SIGKILL\n"
                      << job_err();
  EXPECT_NE(code, 0) << job_err();
  const std::string err = job_err();
  EXPECT_TRUE(err.find("all_gather of") != std::string::npos ||
              err.find("signal 9") != std::string::npos || err.find("Killed") != std::string::npos)
      << err;
  EXPECT_GT(kept_records(), 0) << err;
}

}  // namespace
}  // namespace collreplay
