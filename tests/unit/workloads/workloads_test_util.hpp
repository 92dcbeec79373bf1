// Helpers shared by the workloads unit tests.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>

#include "workloads/plan/request.hpp"
#include "workloads/plan/schedule_builder.hpp"
#include "workloads/schedule.hpp"

namespace collreplay::test {

inline WorkloadRequest request(const std::string& model, int world,
                               const std::string& plan = "fsdp1",
                               const std::string& wrap = "block") {
  WorkloadRequest q;
  q.model = model;
  q.world = world;
  q.gpus_per_node = 8;
  q.plan = plan;
  q.wrap = wrap;
  q.seq = 1024;
  return q;
}

inline const UnitSummary& unit(const Schedule& s, const std::string& name) {
  auto it = std::find_if(s.units.begin(), s.units.end(),
                         [&](const UnitSummary& u) { return u.name == name; });
  if (it == s.units.end()) throw std::runtime_error("no unit " + name);
  return *it;
}

inline double rounded(double value, double unit, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value / unit * scale) / scale;
}

}  // namespace collreplay::test
