// JSON Lines results file: one JSON object per line, one line per measurement. Each record is
// written as it is added into "<out>.partial" (common/atomic_file.hpp); commit() renames it over
// <out> at the end of a successful run. A run that fails part way leaves the records it had
// measured in "<out>.partial" and nothing at <out>: a file found at <out> at the start is moved
// to "<out>.previous" first, so no older file is ever mistaken for this run's.
// Only the writer (rank 0) touches the disk; other ranks may add() and commit() harmlessly.
//
//   ResultsFile results(options.out_path, rank == 0);   // UsageError if unwritable
//   results.add({{"op", "all_gather"}, {"bytes", 1024}, ...});
//   results.commit();                                  // at the end of a successful run
#pragma once
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"

namespace collreplay {

class ResultsFile {
 public:
  // An empty path disables the file. Otherwise checks, by creating and removing a probe file in
  // the target's directory, that the file can be written (UsageError naming the path), then
  // moves an existing file at `path` to "<path>.previous".
  ResultsFile(std::string path, bool writer);
  ~ResultsFile();

  bool enabled() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  void add(const nlohmann::json& record);
  // Renames the partial file over the target. Throws RuntimeError on I/O failure.
  void commit();

 private:
  AtomicFile& file();

  std::string path_;
  bool writer_;
  int records_ = 0;
  bool committed_ = false;
  std::unique_ptr<AtomicFile> file_;  // created by the first record
};

}  // namespace collreplay
