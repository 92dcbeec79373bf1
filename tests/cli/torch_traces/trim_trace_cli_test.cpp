// sweeps/gpu/reference/trim_trace.py, the tool that cuts a real torch.profiler trace down to a
// fixture: the steps it keeps are ProfilerStep#N spans whatever their category, the empty span a
// schedule can leave last is passed over, the per-rank traces of one job are cut over the same
// step numbers, and it says when the ranks' steps issue different collectives (a per-rank replay
// refuses those). Needs python3 (`make deps` installs it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

using nlohmann::json;

struct StepSpec {
  int n;
  std::string cat;      // the span's category: torch writes user_annotation or cpu_op
  int collectives = 1;  // NCCL kernels launched in the step (0: an empty span)
};

// A per-rank trace: step N spans [N * 1000, N * 1000 + 900] us, its collectives launched inside.
json trace_of(const std::vector<StepSpec>& steps) {
  json events = json::array();
  int correlation = 1;
  for (const StepSpec& s : steps) {
    const double start = s.n * 1000.0;
    events.push_back({{"ph", "X"}, {"cat", s.cat}, {"name", "ProfilerStep#" + std::to_string(s.n)},
                      {"pid", 1}, {"tid", 1}, {"ts", start}, {"dur", 900.0}});
    for (int c = 0; c < s.collectives; ++c, ++correlation) {
      const double at = start + 100.0 + 200.0 * c;
      events.push_back({{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaLaunchKernel"},
                        {"pid", 1}, {"tid", 1}, {"ts", at}, {"dur", 5.0},
                        {"args", {{"correlation", correlation}}}});
      events.push_back({{"ph", "X"}, {"cat", "kernel"},
                        {"name", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgs)"},
                        {"pid", 0}, {"tid", 7}, {"ts", at + 10.0}, {"dur", 50.0},
                        {"args", {{"correlation", correlation}, {"stream", 7},
                                  {"Collective name", "allreduce"}, {"In msg nelems", 1024 + c},
                                  {"Group size", 2}, {"dtype", "BFloat16"}}}});
    }
  }
  return {{"schemaVersion", 1}, {"traceEvents", events}};
}

class TrimTrace : public PythonScriptTest {
 protected:
  TrimTrace() : PythonScriptTest("sweeps/gpu/reference/trim_trace.py") {}

  std::string write(const std::string& name, const json& trace) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << trace.dump();
    return path.string();
  }

  // The ProfilerStep#N names of a trimmed trace, with the category each was written with.
  std::vector<std::string> steps_in(const fs::path& path) {
    std::vector<std::string> names;
    const json trace = json::parse(slurp(path));
    for (const json& e : trace["traceEvents"])
      if (e.value("name", std::string()).rfind("ProfilerStep#", 0) == 0)
        names.push_back(e["name"].get<std::string>() + " " + e["cat"].get<std::string>());
    return names;
  }
};

// Rank 1's profiler started a step later, rank 0's last span is empty, and torch wrote one step
// as a cpu_op: both ranks keep #3 and #4, written as user_annotation.
TEST_F(TrimTrace, RanksAreCutOverTheStepsTheyShare) {
  const std::string r0 = write("rank0.trace.json", trace_of({{2, "user_annotation"},
                                                             {3, "user_annotation"},
                                                             {4, "cpu_op"},
                                                             {5, "user_annotation", 0}}));
  const std::string r1 = write("rank1.trace.json",
                               trace_of({{3, "user_annotation"}, {4, "cpu_op"}}));
  const Outcome r = run("python3 " + script_ + " --steps 2 --ranks " + (dir_ / "out").string() +
                        " " + r0 + " " + r1);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ProfilerStep#3, #4: 2 collectives besides send / recv on rank 0, the same on every rank"),
            std::string::npos)
      << r.out;
  const std::vector<std::string> both = {"ProfilerStep#3 user_annotation",
                                         "ProfilerStep#4 user_annotation"};
  EXPECT_EQ(steps_in(dir_ / "out/rank0.trace.json"), both);
  EXPECT_EQ(steps_in(dir_ / "out/rank1.trace.json"), both);
}

// One file, the default: the last step that launched GPU work, not the empty span after it.
TEST_F(TrimTrace, TheLastBusyStepByDefault) {
  const std::string in = write("in.json", trace_of({{3, "user_annotation"},
                                                    {4, "user_annotation", 2},
                                                    {5, "user_annotation", 0}}));
  const Outcome r = run("python3 " + script_ + " " + in + " " + (dir_ / "out.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(steps_in(dir_ / "out.json"), std::vector<std::string>{"ProfilerStep#4 user_annotation"});
  int kernels = 0;
  const json out = json::parse(slurp(dir_ / "out.json"));
  for (const json& e : out["traceEvents"])
    kernels += e.value("cat", std::string()) == "kernel";
  EXPECT_EQ(kernels, 2);
}

// The ranks' shared step issues different collectives: said, exit 1 (the files are written).
TEST_F(TrimTrace, DifferentCollectivesAcrossRanksAreSaid) {
  const std::string r0 = write("rank0.trace.json", trace_of({{4, "user_annotation", 2}}));
  const std::string r1 = write("rank1.trace.json", trace_of({{4, "user_annotation", 1}}));
  const Outcome r = run("python3 " + script_ + " --ranks " + (dir_ / "out").string() + " " + r0 +
                        " " + r1);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("NOT the same on every rank: rank0.trace.json 2; rank1.trace.json 1"),
            std::string::npos)
      << r.out;
}

// A copy launched by cudaMemcpyAsync: the call is the copy's launch and a host wait at once, and is
// kept once (it was kept twice, and counted twice by the importer). --dedupe repairs a file
// trimmed before: each call once, in place.
TEST_F(TrimTrace, ACopysLaunchIsKeptOnceAndDedupeRepairsOldFiles) {
  json trace = trace_of({{4, "user_annotation"}});
  trace["traceEvents"].push_back({{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaMemcpyAsync"},
                                  {"pid", 1}, {"tid", 1}, {"ts", 4500.0}, {"dur", 30.0},
                                  {"args", {{"correlation", 99}}}});
  trace["traceEvents"].push_back({{"ph", "X"}, {"cat", "gpu_memcpy"}, {"name", "Memcpy DtoH"},
                                  {"pid", 0}, {"tid", 7}, {"ts", 4510.0}, {"dur", 5.0},
                                  {"args", {{"correlation", 99}, {"stream", 7}}}});
  const auto memcpys = [&](const fs::path& path) {
    int n = 0;
    const json doc = json::parse(slurp(path));
    for (const json& e : doc["traceEvents"]) n += e.value("name", std::string()) == "cudaMemcpyAsync";
    return n;
  };
  const std::string in = write("in.json", trace);
  ASSERT_EQ(run("python3 " + script_ + " " + in + " " + (dir_ / "out.json").string()).exit_code, 0);
  EXPECT_EQ(memcpys(dir_ / "out.json"), 1);

  json old = json::parse(slurp(dir_ / "out.json"));
  json bare = old["traceEvents"].back();
  for (const json& e : old["traceEvents"])
    if (e.value("name", std::string()) == "cudaMemcpyAsync") bare = e;
  bare["args"] = json::object();  // as the old trim wrote the wait's copy
  old["traceEvents"].push_back(bare);
  const std::string repaired = write("old.json", old);
  ASSERT_EQ(memcpys(repaired), 2);
  const Outcome r = run("python3 " + script_ + " --dedupe " + repaired);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 repeated host calls dropped"), std::string::npos) << r.out;
  EXPECT_EQ(memcpys(repaired), 1);
}

// Bad input: one line and exit 2, no output file.
TEST_F(TrimTrace, BadInputIsOneLineAndExitTwo) {
  const std::string in = write("in.json", trace_of({{3, "user_annotation"}}));
  const std::string bad = write("bad.json", json::array());
  const std::string out = (dir_ / "out.json").string();
  for (const std::string& args :
       {in + " --step 9 " + out, bad + " " + out, (dir_ / "absent.json").string() + " " + out,
        "--steps 0 " + in + " " + out}) {
    const Outcome r = run("python3 " + script_ + " " + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(count_lines(r.err), 1) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
}

}  // namespace
}  // namespace collreplay::cli_test
