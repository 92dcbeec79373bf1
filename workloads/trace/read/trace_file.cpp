#include "workloads/trace/read/trace_file.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include <zlib.h>
#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "common/read_file.hpp"
#include "workloads/schedule_file.hpp"

namespace collreplay::trace {
namespace {

namespace fs = std::filesystem;

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// The inflated text, or its first `limit` bytes at least when limit > 0.
std::string gunzip(const std::string& bytes, const std::string& path, std::size_t limit = 0) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)  // 16: gzip header and trailer
    throw UsageError("trace '" + path + "': zlib cannot start inflating");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(bytes.size());
  std::string text;
  char chunk[1 << 16];
  int status = Z_OK;
  while (status == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof chunk;
    status = inflate(&zs, Z_NO_FLUSH);
    text.append(chunk, sizeof chunk - zs.avail_out);
    if (limit > 0 && text.size() >= limit) {
      inflateEnd(&zs);
      return text;
    }
  }
  inflateEnd(&zs);
  if (status != Z_STREAM_END)
    throw UsageError("trace '" + path + "': not a whole gzip file (" +
                     (zs.msg ? std::string(zs.msg) : "truncated") + ")");
  return text;
}

bool is_trace_name(const std::string& name) {
  for (const char* end : {".json", ".json.gz"})
    if (name.size() > std::string(end).size() &&
        name.compare(name.size() - std::string(end).size(), std::string::npos, end) == 0)
      return true;
  return false;
}

// distributedInfo.rank without parsing the whole trace: torch writes distributedInfo as one
// object near the top; -1 when the text has none.
int rank_in(const std::string& text) {
  const std::size_t key = text.find("\"distributedInfo\"");
  const std::size_t open = key == std::string::npos ? key : text.find('{', key);
  if (open == std::string::npos) return -1;
  int depth = 0;
  bool quoted = false;
  for (std::size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == '{' || c == '}') {
      depth += c == '{' ? 1 : -1;
      if (depth == 0) {
        const nlohmann::json info =
            nlohmann::json::parse(text.substr(open, i - open + 1), nullptr, false);
        if (info.is_object() && info.contains("rank") && info["rank"].is_number_integer())
          return info["rank"].get<int>();
        return -1;
      }
    }
  }
  return -1;
}

// Its first 64 KiB: torch writes distributedInfo ahead of traceEvents, a few hundred bytes in.
int sniffed_rank(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(1 << 16, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (is_gzip(head)) {
    std::string whole = read_whole_file(path, "trace file");
    head = gunzip(whole, path, 1 << 16);
  }
  const int rank = rank_in(head);
  return rank >= 0 ? rank : rank_in(read_trace_text(path));
}

}  // namespace

std::string read_trace_text(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw UsageError("trace '" + path + "' is a folder where a trace file was expected");
  std::string bytes = read_whole_file(path, "trace file");
  return is_gzip(bytes) ? gunzip(bytes, path) : bytes;
}

TraceSource trace_source(const std::string& trace, int rank) {
  if (is_per_rank_pattern(trace)) return {path_for_rank(trace, rank), true};
  std::error_code ec;
  if (!fs::is_directory(trace, ec)) return {trace, false};
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(trace, ec))
    if (e.is_regular_file() && is_trace_name(e.path().filename().string()))
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty())
    throw UsageError("trace folder '" + trace +
                     "' holds no *.json or *.json.gz (torch.profiler's *.pt.trace.json)");
  if (files.size() == 1) return {files.front(), false};
  std::string mine;
  for (const std::string& f : files) {
    const int r = sniffed_rank(f);
    if (r < 0)
      throw UsageError("trace '" + f + "' has no distributedInfo rank: in a folder of several " +
                       "traces each must be one rank's (profile a distributed job)");
    if (r != rank) continue;
    if (!mine.empty())
      throw UsageError("trace folder '" + trace + "' holds rank " + std::to_string(rank) +
                       "'s trace twice: '" + mine + "' and '" + f + "' (keep one step's files)");
    mine = f;
  }
  if (mine.empty())
    throw UsageError("trace folder '" + trace + "' has no trace of rank " + std::to_string(rank));
  return {mine, true};
}

}  // namespace collreplay::trace
