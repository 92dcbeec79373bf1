// A sweep cell run with the programs copied outside the checkout (sweeps/sweep --bin DIR): the
// cell's replay finds the fabric profiles by the project's one rule (common/data_files.hpp) and
// records the fabric it stood for.
#include <nlohmann/json.hpp>

#include "tests/emulated/emulated.hpp"

namespace collreplay::emulated_test {
namespace {

class RelocatedSweep : public EmulatedTest {};

TEST_F(RelocatedSweep, ACellRunsWithCopiedPrograms) {
  const fs::path copy = dir_ / "copied-bin";
  fs::create_directories(copy);
  fs::copy_file(cli_test::bin_dir() / "replay", copy / "replay");
  const Outcome o = run(sweep("--emulate --bin " + quoted(copy) +
                              " --nodes 1 --fabric eth-10g --backend mpi --model qwen2.5-0.5b "
                              "--layers 1 --compute model:h100 --timeout 120 --out " +
                              quoted(dir_ / "out") + " -- --seq 64"));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const auto records = cli_test::read_jsonl(dir_ / "out/eth-10g_n1_r1_qwen2.5-0.5b_fsdp1.jsonl");
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records.front()["run"]["fabric"], "eth-10g");
  EXPECT_EQ(leftover_namespaces("crs"), "");
}

}  // namespace
}  // namespace collreplay::emulated_test
