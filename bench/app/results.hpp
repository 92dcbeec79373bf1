// JSON Lines results file: one JSON object per line, one line per measurement. Records are kept
// in memory and written by commit() to a temporary file beside the target, then renamed over it,
// so a crash never leaves a half-written file and an aborted run leaves no file at all.
// Only the writer (rank 0) touches the disk; other ranks may add() and commit() harmlessly.
//
//   ResultsFile results(options.out_path, rank == 0);   // before MPI_Init: UsageError if unwritable
//   results.add({{"op", "all_gather"}, {"bytes", 1024}, ...});
//   results.commit();                                  // at the end of a successful run
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collreplay {

class ResultsFile {
 public:
  // An empty path disables the file. Otherwise checks, by creating and removing a probe file in
  // the target's directory, that the file can be written; throws UsageError naming the path.
  ResultsFile(std::string path, bool writer);

  bool enabled() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  void add(nlohmann::json record);
  // Writes every record added so far (replacing an existing file). Throws RuntimeError on I/O
  // failure, leaving no temporary file behind.
  void commit();

 private:
  std::string path_;
  bool writer_;
  std::vector<nlohmann::json> records_;
};

}  // namespace collreplay
