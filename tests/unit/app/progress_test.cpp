// Progress lines: durations people read at a glance, the time left from the work done so far,
// and silence unless wanted.
#include "bench/app/progress.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace collreplay {
namespace {

// A scratch stream standing in for stderr.
class Captured {
 public:
  Captured() : file_(std::tmpfile()) {}
  ~Captured() { std::fclose(file_); }
  std::FILE* file() const { return file_; }
  std::string text() const {
    std::rewind(file_);
    std::string text;
    for (int c; (c = std::fgetc(file_)) != EOF;) text.push_back(static_cast<char>(c));
    return text;
  }

 private:
  std::FILE* file_;
};

TEST(Progress, DurationsReadAtAGlance) {
  EXPECT_EQ(format_duration(4.6), "5 s");
  EXPECT_EQ(format_duration(200), "3 min 20 s");
  EXPECT_EQ(format_duration(3900), "1 h 05 min");
  EXPECT_EQ(format_duration(-3), "0 s");
}

TEST(Progress, AnnouncesThenCountsDownToTheEnd) {
  const Captured out;
  ASSERT_NE(out.file(), nullptr);
  const Progress p("replay", 4, true, out.file());
  p.announce("qwen2.5-7b fsdp1 on 2 ranks", 90);
  p.advance(1, "pass 1/4 (compute_only)");
  p.advance(4, "pass 4/4 (overlapped)");
  const std::string text = out.text();
  EXPECT_NE(text.find("replay: qwen2.5-7b fsdp1 on 2 ranks (about 1 min 30 s)\n"),
            std::string::npos)
      << text;
  const std::size_t first = text.find("replay: pass 1/4 (compute_only), ");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_NE(text.find(" left\n", first), std::string::npos) << text;  // 3 of 4 still to come
  const std::size_t last = text.find("replay: pass 4/4 (overlapped), ");
  ASSERT_NE(last, std::string::npos) << text;
  EXPECT_EQ(text.find("left", last), std::string::npos) << text;  // nothing left at the end
}

TEST(Progress, SilentUnlessWanted) {
  const Captured out;
  ASSERT_NE(out.file(), nullptr);
  const Progress p("all_gather_perf", 2, false, out.file());
  p.announce("2 cases", 5);
  p.advance(1, "case 1/2");
  EXPECT_EQ(out.text(), "");
  EXPECT_TRUE(progress_wanted(true, 0));
  EXPECT_FALSE(progress_wanted(true, 1));  // only rank 0 reports
}

}  // namespace
}  // namespace collreplay
