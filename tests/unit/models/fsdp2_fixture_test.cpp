// tests/fixtures/hf/fsdp2_units.json is what replay computes for FSDP2's all-gather per unit;
// sweeps/gpu/reference/fsdp2_unit_sizes.py --expected holds torch's own FSDP2 (fake process
// group, the modules of families.py) to the same file. This test holds replay to it.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/unit/models/hf_fixture.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"

namespace collreplay {
namespace {

TEST(ModelFsdp2Fixture, ReplayUnitSizesAreTheFixtures) {
  std::ifstream in(test::hf_folder("") + "fsdp2_units.json");
  ASSERT_TRUE(in) << "missing tests/fixtures/hf/fsdp2_units.json";
  const nlohmann::json fixture = nlohmann::json::parse(in);
  nlohmann::json actual = fixture;
  for (auto& c : actual["cases"]) {
    WorkloadRequest q = test::request(test::hf_folder("") + "../../../" + c["model"].get<std::string>(),
                                      c["world"].get<int>(), "fsdp2");
    q.layers = c["layers"].get<int>();
    q.experts_layout = c["experts_layout"].get<std::string>();
    const Schedule s = build_schedule(q);
    nlohmann::json units = nlohmann::json::object();
    for (const UnitSummary& u : s.units) units[u.name] = u.allgather_bytes;
    c["allgather_bytes"] = units;
  }
  EXPECT_EQ(actual, fixture) << "replay computes:\n" << actual.dump(2);
}

}  // namespace
}  // namespace collreplay
