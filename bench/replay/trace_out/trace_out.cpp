#include "bench/replay/trace_out/trace_out.hpp"

#include "collectives/mpi/mpi_watched.hpp"
#include "common/errors.hpp"
#include "workloads/schedule_file.hpp"

namespace collreplay {

TraceOut::TraceOut(std::string path, MPI_Comm comm, double timeout_s)
    : path_(std::move(path)), comm_(comm), timeout_s_(timeout_s) {
  if (path_.empty()) return;
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &world_);
  per_rank_ = is_per_rank_pattern(path_);
  std::string problem;
  if (rank_ == 0) {
    try {
      for (int r = 0; r < (per_rank_ ? world_ : 1); ++r)
        files_.push_back(std::make_unique<AtomicFile>(per_rank_ ? path_for_rank(path_, r) : path_,
                                                      AtomicFile::OnFailure::remove));
    } catch (const UsageError& e) {
      problem = std::string("--trace-out: ") + e.what();
      files_.clear();
    }
  }
  throw_if_any_rank_has(comm_, problem, timeout_s_);
}

TraceOut::~TraceOut() = default;

std::vector<std::string> TraceOut::write(const Schedule& schedule, const PassResult& overlapped,
                                         const TraceOutContext& context) {
  if (!enabled()) return {};
  RankStep mine;
  mine.rank = rank_;
  mine.schedule = &schedule;
  mine.op_start_ms = overlapped.op_start_ms;
  mine.op_end_ms = overlapped.op_end_ms;
  mine.compute_scale = context.compute_scale;
  if (context.compute_model) mine.model = *context.compute_model;
  for (const std::string& color :
       all_gather_strings(comm_, std::to_string(context.node_color), timeout_s_))
    mine.node_colors.push_back(std::stoi(color));
  const TraceOutRun run{schedule.model, schedule.plan, context.backend, context.engine, world_,
                        context.devices};
  const RankTrace trace = rank_trace(mine);
  const nlohmann::json part = {{"events", trace.events}, {"groups", trace.process_groups}};
  const std::vector<std::string> parts = gather_strings_to_root(comm_, part.dump(), timeout_s_);
  if (rank_ != 0) return {};
  std::vector<RankTrace> by_rank;
  for (const std::string& text : parts) {
    const nlohmann::json j = nlohmann::json::parse(text);
    by_rank.push_back({j["events"], j["groups"]});
  }
  std::vector<std::string> written;
  if (!per_rank_) {
    files_[0]->append(merged_document(by_rank, run).dump());
  } else {
    for (std::size_t r = 0; r < files_.size(); ++r)
      files_[r]->append(rank_document(by_rank[r], static_cast<int>(r), run).dump());
  }
  for (const std::unique_ptr<AtomicFile>& f : files_) {
    f->append("\n");
    f->commit();
    written.push_back(f->path());
  }
  return written;
}

}  // namespace collreplay
