// replay -G records the comm-only step on one communicator: schedules whose collectives span
// several groups are refused, naming them.
#include <gtest/gtest.h>

#include "bench/replay/measure/graph_step.hpp"
#include "common/errors.hpp"
#include "replay_schedule_fixture.hpp"

namespace collreplay {
namespace {

TEST(GraphStep, OneGroupIsRecordable) {
  const Schedule s = testing::two_unit_schedule(1 << 20, 64);
  EXPECT_NO_THROW(require_one_collective_group(s));
  EXPECT_EQ(collectives_per_step(s), 4);
}

TEST(GraphStep, SeveralGroupsAreRefusedByName) {
  Schedule s = testing::two_unit_schedule(1 << 20, 64);
  std::get<CollectiveOp>(s.ops[2].body).group = GroupKind::expert;
  try {
    require_one_collective_group(s);
    FAIL() << "two groups accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("2 groups (world, expert)"), std::string::npos)
        << e.what();
  }
}

TEST(GraphStep, NoCollectivesAreRefused) {
  Schedule s = testing::two_unit_schedule(1 << 20, 64);
  std::erase_if(s.ops, [](const ScheduleOp& op) { return op.is_collective(); });
  EXPECT_THROW(require_one_collective_group(s), UsageError);
  EXPECT_EQ(collectives_per_step(s), 0);
}

}  // namespace
}  // namespace collreplay
