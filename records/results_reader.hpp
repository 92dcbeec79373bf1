// The one reader of results in the tree: JSON Lines files, or folders of them read
// recursively, into records that remember their file and line. Plots and the report show what
// they can (a malformed line is a warning); the projection's fit must not silently lose a point
// (a malformed line is an error).
#pragma once
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "records/record.hpp"

namespace collreplay::records {

// The results files `path` names: itself when it is a file (whatever its name), else every
// *.jsonl below it, sorted so that every machine reads them in the same order. UsageError when
// it does not exist.
std::vector<std::filesystem::path> results_files(const std::string& path);

// Every record of every file each path names, in order. A blank line is nothing; a line that is
// not a JSON object is reported on `warnings` as `file:line: reason, skipped`.
std::vector<Record> read_results(const std::vector<std::string>& paths, std::ostream& warnings);

// The same, but a line that is not a JSON object is a UsageError `file:line: reason`.
std::vector<Record> read_results_strictly(const std::vector<std::string>& paths);

}  // namespace collreplay::records
