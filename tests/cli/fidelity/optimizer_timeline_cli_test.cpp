// sweeps/gpu/traces/optimizer_timeline.py: where the host's time falls in the reference's
// optimizer step beside the kernels each call launched, from the host's entry into the step;
// bad input one line and exit 2. Needs python3.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

using nlohmann::json;

class OptimizerTimeline : public PythonScriptTest {
 protected:
  OptimizerTimeline() : PythonScriptTest("sweeps/gpu/traces/optimizer_timeline.py") {}

  void save(const std::string& name, const json& events) {
    std::ofstream(dir_ / name) << json{{"traceEvents", events}}.dump();
  }

  static json host(const char* cat, const std::string& name, double ts, double dur, int tid = 1) {
    return {{"ph", "X"}, {"cat", cat}, {"name", name}, {"ts", ts}, {"dur", dur}, {"tid", tid}};
  }

  // A launch call at `launch_ts` and the kernel it queued, running [start, start + dur).
  void add_kernel(json& events, double launch_ts, double start, double dur) {
    const int id = ++correlation_;
    events.push_back({{"ph", "X"},
                      {"cat", "cuda_runtime"},
                      {"name", "cudaLaunchKernel"},
                      {"ts", launch_ts},
                      {"dur", 3},
                      {"tid", 1},
                      {"args", {{"correlation", id}}}});
    events.push_back({{"ph", "X"},
                      {"cat", "kernel"},
                      {"name", "multi_tensor_apply_kernel"},
                      {"ts", start},
                      {"dur", dur},
                      {"args", {{"correlation", id}}}});
  }

  // The output with each run of spaces as one, so the tests read the figures, not the columns.
  std::string timeline(const std::filesystem::path& trace) {
    const Outcome o = run("python3 " + script_ + " " + trace.string());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return std::regex_replace(o.out, std::regex(" +"), " ");
  }

  int correlation_ = 0;
};

TEST_F(OptimizerTimeline, EachCallsHostTimeBesideTheKernelsItLaunched) {
  json t = json::array();
  t.push_back(host("user_annotation", "reference.backward", 0, 1000));
  add_kernel(t, 900, 950, 450);  // backward's last kernel, still running when the step starts
  t.push_back(host("user_annotation", "reference.optimizer", 1000, 3000));
  t.push_back(host("user_annotation", "Optimizer.step#AdamW.step", 1010, 2800));
  t.push_back(host("cpu_op", "aten::_foreach_mul_", 1500, 300));
  t.push_back(host("cpu_op", "aten::empty", 1510, 5));  // inside the foreach call: not its own row
  add_kernel(t, 1700, 1750, 200);
  add_kernel(t, 1750, 1950, 150);
  for (double at : {2000.0, 2010.0, 2020.0}) t.push_back(host("cpu_op", "aten::item", at, 2));
  t.push_back(host("cpu_op", "aten::_foreach_addcdiv_", 2100, 200));
  add_kernel(t, 2250, 2300, 500);
  t.push_back(host("cpu_op", "aten::copy_", 2500, 50, 2));  // another thread's: not the step's
  t.push_back(host("user_annotation", "Optimizer.zero_grad#AdamW.zero_grad", 3850, 100));
  save("trace.json", t);

  const std::string out = timeline(dir_ / "trace.json");
  for (const char* line :
       {"backward: its kernels ended at +400.0 (the host left backward at +0.0)",
        "optimizer: host 3000.0; GPU +750.0 .. +1800.0, 3 kernels, busy 850.0",
        "+10.0 10.0 2800.0 Optimizer.step#AdamW.step; GPU +750.0 .. +1800.0",
        // The Python before the first call (the gap) is what a GPU still in backward hides.
        "+500.0 490.0 300.0 aten::_foreach_mul_; GPU +750.0 .. +1100.0, 2 kernels, busy 350.0",
        "+1000.0 200.0 22.0 aten::item x3 and the Python between them\n",
        "+1100.0 78.0 200.0 aten::_foreach_addcdiv_; GPU +1300.0 .. +1800.0, 1 kernels, "
        "busy 500.0",
        "+2850.0 40.0 100.0 Optimizer.zero_grad#AdamW.zero_grad\n"})
    EXPECT_NE(out.find(line), std::string::npos) << line << "\n" << out;
  EXPECT_EQ(out.find("aten::empty"), std::string::npos) << out;
  EXPECT_EQ(out.find("aten::copy_"), std::string::npos) << out;
}

// torch 2.11's foreach AdamW on an H200 (tests/fixtures/optimizer_timeline/README.md): eight
// foreach calls of ten kernels each, the bias corrections' item() a tensor folded into one line
// between addcmul_ and sqrt, zero_grad after the last launch.
TEST_F(OptimizerTimeline, ARealFourLayerStepOfTorchsForeachAdamW) {
  const std::string out =
      timeline(bin_dir().parent_path().parent_path() /
               "tests/fixtures/optimizer_timeline/q05_foreach_h200.trace.json.gz");
  EXPECT_NE(out.find("backward: its kernels ended at -240.1 (the host left backward at -29.1)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("optimizer: host 4505.0; GPU +1001.4 .. +4628.5, 80 kernels, busy 2520.3"),
            std::string::npos)
      << out;
  std::size_t foreach_calls = 0;
  for (std::size_t at = out.find("aten::_foreach_"); at != std::string::npos;
       at = out.find("aten::_foreach_", at + 1)) {
    const std::string line = out.substr(at, out.find('\n', at) - at);
    if (line.find("10 kernels") != std::string::npos) ++foreach_calls;
  }
  EXPECT_EQ(foreach_calls, 8u) << out;
  const std::size_t addcmul = out.find("aten::_foreach_addcmul_");
  const std::size_t items = out.find("aten::item x100 and the Python between them");
  const std::size_t sqrt = out.find("aten::_foreach_sqrt");
  EXPECT_LT(addcmul, items) << out;
  EXPECT_LT(items, sqrt) << out;
  EXPECT_NE(out.find("+4400.3 30.3 97.2 Optimizer.zero_grad#AdamW.zero_grad"), std::string::npos)
      << out;
}

TEST_F(OptimizerTimeline, BadInputIsOneLineAndExitTwo) {
  save("no_ranges.json", json::array({host("cpu_op", "aten::mm", 0, 10)}));
  save("not_a_list.json", json::object());
  std::ofstream(dir_ / "broken.json") << "{not json";
  for (const std::string& args :
       {(dir_ / "broken.json").string(), (dir_ / "missing.json").string(),
        (dir_ / "no_ranges.json").string(), (dir_ / "not_a_list.json").string(), std::string(),
        (dir_ / "no_ranges.json").string() + " extra"}) {
    const Outcome o = run("python3 " + script_ + " " + args);
    EXPECT_EQ(o.exit_code, 2) << args;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
    EXPECT_TRUE(o.out.empty()) << args;
  }
}

}  // namespace
}  // namespace collreplay::cli_test
