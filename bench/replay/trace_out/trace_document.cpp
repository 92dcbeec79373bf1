#include "bench/replay/trace_out/trace_document.hpp"

namespace collreplay {
namespace {

using nlohmann::json;

json document(json events, int rank, const RankTrace& groups_of, const TraceOutRun& run) {
  const std::string device =
      rank < static_cast<int>(run.devices.size()) ? run.devices[static_cast<std::size_t>(rank)] : "";
  return {{"schemaVersion", 1},
          {"distributedInfo",
           {{"backend", run.backend},
            {"rank", rank},
            {"world_size", run.world},
            {"pg_count", groups_of.process_groups.size()},
            {"pg_config", groups_of.process_groups}}},
          {"deviceProperties", json::array({{{"id", 0}, {"name", device}}})},
          {"collreplay",
           {{"written_by", "replay --trace-out"},
            {"model", run.model},
            {"plan", run.plan},
            {"compute_engine", run.engine},
            {"step",
             "each rank's median step of the overlapped pass, from its own start; compute "
             "kernels share their op's measured time by modeled time"}}},
          {"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"}};
}

}  // namespace

json rank_document(const RankTrace& trace, int rank, const TraceOutRun& run) {
  return document(trace.events, rank, trace, run);
}

json merged_document(const std::vector<RankTrace>& by_rank, const TraceOutRun& run) {
  json events = json::array();
  for (std::size_t r = 0; r < by_rank.size(); ++r)
    for (json e : by_rank[r].events) {
      if (r > 0 && e.contains("cat")) {
        const std::string cat = e["cat"];
        if (cat == "kernel" || cat == "cuda_runtime" || cat == "user_annotation" || cat == "cpu_op")
          e["cat"] = cat + "@rank" + std::to_string(r);
      }
      events.push_back(std::move(e));
    }
  return document(std::move(events), 0, by_rank.empty() ? RankTrace{} : by_rank[0], run);
}

}  // namespace collreplay
