// replay --trace-out as a user runs it, on host ranks (MPI, modeled compute): the file holds every
// rank's step (processes "rank N", compute and comm streams, phases, every collective with its
// kind and bytes), nests as the viewers need, leaves nothing half-written, and reads back with
// `replay --dry-run --trace` as the same collectives with the same sizes (the round trip), also
// when the replay was itself a --trace replay. Bad uses exit 2 with one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

using nlohmann::json;

const std::string kTiny = "--model sweeps/models/replay-tiny.json --layers 2 --seq 64";
const std::string kQuick = "--steps 1 --warmup 1 --compute model:a100@0.001";

std::string replay() { return (bin_dir() / "replay").string(); }
std::string mpirun(int ranks) { return mpirun_command() + " -np " + std::to_string(ranks) + " "; }

// kind, bytes, dtype, group: what the round trip must keep.
using Collective = std::tuple<std::string, std::uint64_t, std::string, std::string>;

std::vector<Collective> collectives_in(const fs::path& schedule_file) {
  std::vector<Collective> out;
  const json schedule = json::parse(slurp(schedule_file));
  for (const json& op : schedule["ops"])
    if (op.contains("collective")) {
      const json& c = op["collective"];
      out.emplace_back(c["kind"], c["bytes"], c["dtype"], c["group"]);
    }
  return out;
}

// The NCCL kernels of one rank (pid) in the file, in launch order: kind and bytes.
std::vector<std::pair<std::string, std::uint64_t>> kernels_of(const json& doc, int pid) {
  std::vector<std::pair<double, std::pair<std::string, std::uint64_t>>> found;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "X" && e["pid"] == pid && e.contains("args") &&
        e["args"].contains("Collective name"))
      found.push_back({e["args"]["correlation"].get<double>(),
                       {e["args"]["kind"], e["args"]["bytes"].get<std::uint64_t>()}});
  std::sort(found.begin(), found.end());
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const auto& f : found) out.push_back(f.second);
  return out;
}

std::vector<std::pair<std::string, std::uint64_t>> kinds_and_bytes(
    const std::vector<Collective>& collectives) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const Collective& c : collectives) out.emplace_back(std::get<0>(c), std::get<1>(c));
  return out;
}

// chrome://tracing and Perfetto stack the complete events of one track: they must nest, never
// cross. Also every event is well formed.
void expect_well_formed(const json& doc) {
  ASSERT_TRUE(doc["traceEvents"].is_array());
  EXPECT_EQ(doc["displayTimeUnit"], "ms");
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
  for (const json& e : doc["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid")) << e.dump();
    if (e["ph"] != "X") continue;
    ASSERT_TRUE(e["ts"].is_number() && e["dur"].is_number()) << e.dump();
    EXPECT_GE(e["dur"].get<double>(), 0) << e.dump();
    tracks[{e["pid"], e["tid"]}].push_back({e["ts"], e["ts"].get<double>() + e["dur"].get<double>()});
  }
  for (auto& [track, spans] : tracks) {
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<double> open;  // ends of the enclosing spans
    for (const auto& [from, to] : spans) {
      while (!open.empty() && open.back() <= from + 1e-6) open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(to, open.back() + 1e-6)
            << "pid " << track.first << " tid " << track.second << ": [" << from << ", " << to
            << "] crosses a span ending at " << open.back();
      }
      open.push_back(to);
    }
  }
}

class TraceOutCli : public ScratchDirTest {
 protected:
  // The collectives `replay --dry-run` lists for these workload flags (its saved schedule).
  std::vector<Collective> dry_run(const std::string& flags) {
    const fs::path file = dir_ / "dry.json";
    const Outcome o = run(replay() + " --dry-run --backend mpi " + flags + " --save-schedule " +
                          file.string());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return collectives_in(file);
  }
};

TEST_F(TraceOutCli, TwoRanksStepsReadBackAsTheSameCollectives) {
  const fs::path file = dir_ / "step.json";
  const Outcome o = run(mpirun(2) + replay() + " --backend mpi " + kTiny + " " + kQuick +
                        " --trace-out " + file.string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("# trace: " + file.string()), std::string::npos) << o.out;
  EXPECT_FALSE(fs::exists(file.string() + ".partial"));
  const json doc = json::parse(slurp(file));
  expect_well_formed(doc);
  EXPECT_EQ(doc["distributedInfo"]["rank"], 0);
  EXPECT_EQ(doc["distributedInfo"]["world_size"], 2);

  std::map<int, std::string> processes;
  std::map<int, std::set<std::string>> threads, phases;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "thread_name") threads[e["pid"]].insert(e["args"]["name"]);
    if (e["ph"] == "X" && e["cat"] == "phase") phases[e["pid"]].insert(e["name"]);
  }
  EXPECT_EQ(processes, (std::map<int, std::string>{{0, "rank 0"}, {1, "rank 1"}}));
  const std::vector<Collective> asked = dry_run(kTiny + " --world 2");
  ASSERT_FALSE(asked.empty());
  for (int pid : {0, 1}) {
    for (const char* track : {"compute stream", "comm stream (world)", "phases", "host"})
      EXPECT_TRUE(threads[pid].count(track)) << pid << " " << track;
    for (const char* phase : {"forward", "backward", "optimizer"})
      EXPECT_TRUE(phases[pid].count(phase)) << pid << " " << phase;
    // Every collective of the step, with its bytes, on each rank (a symmetric FSDP step).
    EXPECT_EQ(kernels_of(doc, pid), kinds_and_bytes(asked)) << "rank " << pid;
  }

  // The round trip: read back as a trace (rank 0's, a symmetric job's), the same collectives.
  const fs::path back = dir_ / "back.json";
  const Outcome r = run(replay() + " --dry-run --trace " + file.string() + " --save-schedule " +
                        back.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(collectives_in(back), asked);
  EXPECT_NE(r.out.find("rank 0 of 2"), std::string::npos) << r.out;

  // A --trace replay of that file (rank 0's step for both ranks) writes a trace that reads back
  // alike: the way back works for a user's own traces too.
  const fs::path again = dir_ / "again.json";
  const Outcome t = run(mpirun(2) + replay() + " --backend mpi --trace " + file.string() + " " +
                        kQuick + " --trace-out " + again.string());
  ASSERT_EQ(t.exit_code, 0) << t.out << t.err;
  expect_well_formed(json::parse(slurp(again)));
  const fs::path back_again = dir_ / "back_again.json";
  ASSERT_EQ(run(replay() + " --dry-run --trace " + again.string() + " --save-schedule " +
                back_again.string())
                .exit_code,
            0);
  EXPECT_EQ(collectives_in(back_again), asked);
}

TEST_F(TraceOutCli, PerRankFilesReadBackPerRank) {
  // One file per rank, each its rank's torch-like trace.
  const std::string pattern = (dir_ / "rank%d.json").string();
  const Outcome o = run(mpirun(2) + replay() + " --backend mpi " + kTiny + " " + kQuick +
                        " --trace-out '" + pattern + "'");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  for (int rank : {0, 1}) {
    const json doc = json::parse(slurp(dir_ / ("rank" + std::to_string(rank) + ".json")));
    expect_well_formed(doc);
    EXPECT_EQ(doc["distributedInfo"]["rank"], rank);
    for (const json& e : doc["traceEvents"]) ASSERT_EQ(e["pid"], rank) << e.dump();
  }
  const std::vector<Collective> asked = dry_run(kTiny + " --world 2 --rank 1");
  const fs::path back = dir_ / "back1.json";
  ASSERT_EQ(run(replay() + " --dry-run --trace '" + pattern + "' --rank 1 --save-schedule " +
                back.string())
                .exit_code,
            0);
  EXPECT_EQ(collectives_in(back), asked);
}

TEST_F(TraceOutCli, GzipNamesAreWrittenGzipped) {
  const fs::path file = dir_ / "step.pt.trace.json.gz";
  const Outcome o = run(replay() + " --backend mpi " + kTiny + " --world 1 " + kQuick +
                        " --trace-out " + file.string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const std::string bytes = slurp(file);
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
  const std::vector<Collective> asked = dry_run(kTiny + " --world 1");
  const fs::path back = dir_ / "back.json";
  ASSERT_EQ(run(replay() + " --dry-run --trace " + file.string() + " --save-schedule " +
                back.string())
                .exit_code,
            0);
  EXPECT_EQ(collectives_in(back), asked);
}

TEST_F(TraceOutCli, BadUsesExitTwoWithOneLineAndWriteNothing) {
  const std::string file = (dir_ / "x.json").string();
  const Outcome dry = run(replay() + " --dry-run " + kTiny + " --trace-out " + file);
  EXPECT_EQ(dry.exit_code, 2) << dry.err;
  EXPECT_EQ(count_lines(dry.err), 1) << dry.err;
  EXPECT_NE(dry.err.find("--trace-out"), std::string::npos) << dry.err;
  const std::string nowhere = (dir_ / "missing" / "x.json").string();
  const Outcome bad = run(mpirun(2) + replay() + " --backend mpi " + kTiny + " " + kQuick +
                          " --trace-out " + nowhere);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  const std::string line = "error: --trace-out";
  EXPECT_NE(bad.err.find(line), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find(line), bad.err.rfind(line)) << bad.err;  // rank 0 alone speaks
  EXPECT_FALSE(fs::exists(file));
  EXPECT_FALSE(fs::exists(dir_ / "missing"));
}

}  // namespace
}  // namespace collreplay::cli_test
