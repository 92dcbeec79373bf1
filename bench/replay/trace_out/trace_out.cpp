#include "bench/replay/trace_out/trace_out.hpp"

#include <zlib.h>

#include "collectives/mpi/mpi_watched.hpp"
#include "common/errors.hpp"
#include "workloads/schedule_file.hpp"

namespace collreplay {
namespace {

bool ends_with_gz(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

// `text` as a gzip file (what tensorboard_trace_handler(use_gzip=True) writes).
std::string gzip(const std::string& text) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    throw RuntimeError("--trace-out: zlib cannot start deflating");
  std::string out(deflateBound(&zs, text.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (status != Z_STREAM_END) throw RuntimeError("--trace-out: zlib could not deflate the trace");
  return out;
}

}  // namespace

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
  for (std::size_t r = 0; r < files_.size(); ++r) {
    AtomicFile& f = *files_[r];
    const std::string text =
        (per_rank_ ? rank_document(by_rank[r], static_cast<int>(r), run)
                   : merged_document(by_rank, run))
            .dump() +
        "\n";
    f.append(ends_with_gz(f.path()) ? gzip(text) : text);
    f.commit();
    written.push_back(f.path());
  }
  return written;
}

}  // namespace collreplay
