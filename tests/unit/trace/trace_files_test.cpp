// Traces as files come: several profiled steps (--trace-step, the median by default), none, gzip'd
// (tensorboard_trace_handler(use_gzip=True)), and a folder of tensorboard-named files, one per
// rank.
#include <gtest/gtest.h>

#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "common/errors.hpp"
#include "tests/support/synthetic_trace.hpp"
#include "workloads/trace/trace_import.hpp"

namespace collreplay::trace {
namespace {

namespace fs = std::filesystem;
using test_trace::Builder;
using test_trace::call;

// Three steps of 100, 300 and 200 us, each with one kernel named after its step.
Builder three_steps() {
  Builder b(0, 1);
  b.step(4, 0, 100).kernel("k4", 10, 20, 4);
  b.step(5, 1000, 300).kernel("k5", 1010, 1020, 5);
  b.step(6, 2000, 200).kernel("k6", 2010, 2020, 6);
  return b;
}

std::string only_label(const TraceEvents& t) {
  return t.gpu.size() == 1 ? t.gpu[0].label : std::to_string(t.gpu.size()) + " kernels";
}

TEST(TraceFiles, MedianStepByDefaultOrTheOneNamed) {
  const std::string text = three_steps().text();
  const TraceEvents median = parse_trace(text, "t.json");
  EXPECT_EQ(median.step, 6);
  EXPECT_EQ(only_label(median), "k6");
  EXPECT_EQ(median.steps, (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(only_label(parse_trace(text, "t.json", 4)), "k4");
  try {
    parse_trace(text, "t.json", 9);
    ADD_FAILURE() << "step 9 accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no ProfilerStep#9 (its steps: 4, 5, 6)"),
              std::string::npos)
        << e.what();
  }
}

TEST(TraceFiles, NoProfilerStepIsTheWholeTrace) {
  Builder b(0, 1);
  b.kernel("a", 10, 20, 4).kernel("b", 500, 510, 4);
  // Launched before the profiler started, still running when it did: not the step's.
  b.add({{"ph", "X"}, {"cat", "kernel"}, {"name", "early"}, {"ts", 5.0}, {"dur", 3.0},
         {"args", {{"correlation", 99}}}});
  const TraceEvents t = parse_trace(b.text(), "t.json");
  EXPECT_EQ(t.step, -1);
  EXPECT_EQ(t.gpu.size(), 2u);
  EXPECT_EQ(t.step_start_us, 10);
  EXPECT_THROW(parse_trace(b.text(), "t.json", 1), UsageError);  // --trace-step without steps
}

class TraceFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/collreplay-trace-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write_gz(const fs::path& path, const std::string& text) {
    gzFile f = gzopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())),
              static_cast<int>(text.size()));
    gzclose(f);
  }

  // A rank of a two-rank job: one all-gather of `nelems` elements out.
  static std::string rank_trace(int rank, std::int64_t nelems) {
    Builder b(rank, 2);
    b.step(3, 0, 100).kernel("ncclDevKernel_AllGather_RING_LL", 10, 20, 5,
                             call("_allgather_base", nelems / 2, nelems, "[0, 1]"));
    return b.text();
  }

  fs::path dir_;
};

TEST_F(TraceFolder, GzipReadsAsThePlainFile) {
  write_gz(dir_ / "w.1.pt.trace.json.gz", three_steps().text());
  const TraceEvents t = read_trace((dir_ / "w.1.pt.trace.json.gz").string(), 5);
  EXPECT_EQ(only_label(t), "k5");
  std::ofstream(dir_ / "cut.json.gz") << std::string("\x1f\x8b\x08\x00", 4);
  EXPECT_THROW(read_trace((dir_ / "cut.json.gz").string()), UsageError);
}

TEST_F(TraceFolder, AFolderOfTensorboardFilesIsOnePerRank) {
  // tensorboard_trace_handler's names: <worker>.<timestamp>.pt.trace.json[.gz]; rank from inside.
  write_gz(dir_ / "host_123.1732540000000.pt.trace.json.gz", rank_trace(1, 64));
  std::ofstream(dir_ / "host_122.1732540000001.pt.trace.json") << rank_trace(0, 32);
  std::ofstream(dir_ / "notes.txt") << "not a trace";
  WorkloadRequest q;
  q.trace = dir_.string();
  q.world = 0;  // the traced world
  for (int rank : {0, 1}) {
    q.rank = rank;
    const TraceImport in = import_trace(q);
    EXPECT_EQ(in.schedule.rank, rank);
    EXPECT_EQ(in.schedule.world, 2);
    ASSERT_EQ(in.schedule.ops.size(), 1u);
    EXPECT_EQ(in.schedule.ops[0].collective().bytes, rank == 0 ? 64u : 128u);
  }
  q.rank = 0;
  q.world = 4;  // one file per rank: only at the traced world
  EXPECT_THROW(import_trace(q), UsageError);
  fs::remove(dir_ / "host_122.1732540000001.pt.trace.json");
  q.world = 0;
  // A folder of one trace is every rank's (a symmetric job).
  EXPECT_EQ(import_trace(q).schedule.ops[0].collective().bytes, 128u);
  fs::remove_all(dir_);
  fs::create_directory(dir_);
  EXPECT_THROW(import_trace(q), UsageError);  // empty
}

}  // namespace
}  // namespace collreplay::trace
