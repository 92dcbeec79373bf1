// `project --answer-nodes`: the fabric answer at the node counts asked for (every layout weighed
// there), the projection rows at every --nodes count; bad input is one line and exit 2.
#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

std::string project() { return (bin_dir() / "project").string(); }

class AnswerNodes : public ScratchDirTest {};

constexpr const char* kWorkload =
    " --model qwen2.5-0.5b --layers 2 --micro-batch 1 --seq 1024 --gpus-per-node 2"
    " --compute model:h100";

TEST_F(AnswerNodes, AnswerOnlyAtTheAskedCountsRowsAtAll) {
  const fs::path out = dir_ / "p.jsonl";
  const auto r = run(project() + kWorkload +
                     " --fabric eth-1g,ib-ndr-8x400 --nodes 1,2,4 --answer-nodes 4 --out " +
                     out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::multiset<int> rows, answers;
  for (const nlohmann::json& rec : read_jsonl(out)) {
    if (rec["record"] == "projection") rows.insert(rec["nodes"].get<int>());
    if (rec["record"] == "fabric_comparison") answers.insert(rec["nodes"].get<int>());
  }
  EXPECT_EQ(rows, (std::multiset<int>{1, 1, 2, 2, 4, 4}));  // two fabrics, every count
  EXPECT_EQ(answers, (std::multiset<int>{4}));
}

TEST_F(AnswerNodes, BadCountsAndOneFabricAreRefusedInOneLine) {
  for (const std::string flags : {" --fabric eth-1g,ib-ndr-8x400 --answer-nodes 0",
                                  " --fabric eth-1g,ib-ndr-8x400 --answer-nodes 4,x",
                                  " --fabric eth-1g --answer-nodes 4"}) {
    const fs::path out = dir_ / "bad.jsonl";
    const auto r = run(project() + kWorkload + flags + " --nodes 2 --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << flags;
    EXPECT_NE(r.err.find("--answer-nodes"), std::string::npos) << flags << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << flags << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << flags;
  }
}

}  // namespace
}  // namespace collreplay::cli_test
