// The files `replay --trace-out` writes, assembled from each rank's events (rank_timeline.hpp):
// {"traceEvents": [...], "displayTimeUnit": "ms", "distributedInfo": {...}, ...}, the top level
// torch.profiler's export_chrome_trace writes. Two shapes:
//   - one rank's file (a --trace-out path with "%d"): that rank's events, distributedInfo with its
//     rank; `replay --trace 'FILE%d'` reads the files back, each rank its own;
//   - every rank in one file: pid = rank, for the viewers; distributedInfo says rank 0, and only
//     rank 0's events keep torch's categories ("kernel", "cuda_runtime", "user_annotation",
//     "cpu_op"), so
//     `replay --trace FILE` reads the file as rank 0's trace (a symmetric job's, every rank's);
//     the other ranks' carry "@rankN" after their category, which the importer passes by.
// Pure: no MPI, no files.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/replay/trace_out/rank_timeline.hpp"

namespace collreplay {

struct TraceOutRun {
  std::string model, plan, backend, engine;
  int world = 1;
  std::vector<std::string> devices;  // by rank
};

nlohmann::json rank_document(const RankTrace& trace, int rank, const TraceOutRun& run);
nlohmann::json merged_document(const std::vector<RankTrace>& by_rank, const TraceOutRun& run);

}  // namespace collreplay
