// Traces as torch.profiler leaves them: export_chrome_trace's JSON, tensorboard_trace_handler's
// "<worker>.<timestamp>.pt.trace.json" and its gzip'd ".pt.trace.json.gz" (use_gzip=True), one
// file per rank in a folder. What `--trace` may name, and which file is a rank's.
#pragma once
#include <string>

namespace collreplay::trace {

// The file's text, inflated when it is gzip'd (zlib; known by its magic bytes, not its name).
// UsageError when it cannot be read or inflated.
std::string read_trace_text(const std::string& path);

struct TraceSource {
  std::string path;       // the file holding `rank`'s trace (or every rank's)
  bool per_rank = false;  // one file per rank: it must be that rank's, at the traced world
};

// `trace` for `rank`: a "%d" pattern (that rank's file), a folder (its *.json and *.json.gz: a
// single one is every rank's; several are one per rank, told apart by their distributedInfo's
// rank), or a file (every rank's). UsageError for an empty folder, a folder without that rank or
// with it twice.
TraceSource trace_source(const std::string& trace, int rank);

}  // namespace collreplay::trace
