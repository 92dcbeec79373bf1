// Output files: written as measured into "<out>.partial", renamed over <out> only at the end; a
// failed run leaves its records in the partial file and nothing at <out>; an older file at <out>
// is moved aside at the start. One home for atomic writes (common/atomic_file.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/app/results.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class ResultsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("results_file_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ResultsFileTest, RecordsAreOnDiskBeforeTheEndAndRenamedAtCommit) {
  const fs::path out = dir_ / "r.jsonl";
  ResultsFile results(out.string(), true);
  results.add({{"bytes", 1}});
  EXPECT_EQ(read(dir_ / "r.jsonl.partial"), "{\"bytes\":1}\n");
  EXPECT_FALSE(fs::exists(out));
  results.add({{"bytes", 2}});
  results.commit();
  EXPECT_EQ(read(out), "{\"bytes\":1}\n{\"bytes\":2}\n");
  EXPECT_FALSE(fs::exists(dir_ / "r.jsonl.partial"));
}

TEST_F(ResultsFileTest, AFailedRunKeepsItsRecordsInThePartialFileOnly) {
  const fs::path out = dir_ / "r.jsonl";
  {
    std::ofstream(out) << "{\"from\":\"an older run\"}\n";
    ResultsFile results(out.string(), true);
    results.add({{"bytes", 1}});
    // no commit: the run failed
  }
  EXPECT_FALSE(fs::exists(out)) << "an older file stayed where this run's results belong";
  EXPECT_EQ(read(dir_ / "r.jsonl.previous"), "{\"from\":\"an older run\"}\n");
  EXPECT_EQ(read(dir_ / "r.jsonl.partial"), "{\"bytes\":1}\n");
}

TEST_F(ResultsFileTest, NonWritersTouchNothing) {
  const fs::path out = dir_ / "r.jsonl";
  std::ofstream(out) << "keep\n";
  ResultsFile results(out.string(), false);
  results.add({{"bytes", 1}});
  results.commit();
  EXPECT_EQ(read(out), "keep\n");
  EXPECT_FALSE(fs::exists(dir_ / "r.jsonl.partial"));
}

TEST_F(ResultsFileTest, UnwritableDirectoryIsAUsageError) {
  EXPECT_THROW(ResultsFile((dir_ / "missing" / "r.jsonl").string(), true), UsageError);
}

TEST_F(ResultsFileTest, AtomicWriteLeavesNothingBehindOnFailure) {
  const fs::path path = dir_ / "s.json";
  write_file_atomically(path.string(), "{}\n");
  EXPECT_EQ(read(path), "{}\n");
  {
    AtomicFile file(path.string(), AtomicFile::OnFailure::remove);
    file.append("half");
  }
  EXPECT_EQ(read(path), "{}\n");
  EXPECT_FALSE(fs::exists(dir_ / "s.json.partial"));
}

}  // namespace
}  // namespace collreplay
