#include "records/results_reader.hpp"

#include <algorithm>
#include <fstream>
#include <ostream>

#include "common/errors.hpp"

namespace collreplay::records {
namespace {

namespace fs = std::filesystem;

// Why `text` is not a record, or "" when it is one (then `data` holds it).
std::string parse_record(const std::string& text, nlohmann::json& data) {
  try {
    data = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." -> after ": "
    const std::string reason = e.what();
    const std::size_t colon = reason.find(": ");
    return colon == std::string::npos ? reason : reason.substr(colon + 2);
  }
  return data.is_object() ? "" : "not a JSON object";
}

// Appends the records of `file`; a malformed line goes to `warnings`, or without them is a
// UsageError.
void read_file(const fs::path& file, std::vector<Record>& out, std::ostream* warnings) {
  std::ifstream in(file);
  if (!in) throw UsageError("cannot read " + file.string());
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    Record record{{}, file.string(), line};
    const std::string problem = parse_record(text, record.data);
    if (problem.empty()) {
      out.push_back(std::move(record));
      continue;
    }
    if (!warnings) throw UsageError(record.where() + ": " + problem);
    *warnings << record.where() << ": " << problem << ", skipped\n";
  }
}

std::vector<Record> read_all(const std::vector<std::string>& paths, std::ostream* warnings) {
  std::vector<Record> records;
  for (const std::string& path : paths)
    for (const fs::path& file : results_files(path)) read_file(file, records, warnings);
  return records;
}

}  // namespace

std::vector<fs::path> results_files(const std::string& path) {
  if (!fs::exists(path)) throw UsageError(path + ": no such file or folder");
  if (!fs::is_directory(path)) return {fs::path(path)};
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(path))
    if (entry.is_regular_file() && entry.path().extension() == ".jsonl")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<Record> read_results(const std::vector<std::string>& paths, std::ostream& warnings) {
  return read_all(paths, &warnings);
}

std::vector<Record> read_results_strictly(const std::vector<std::string>& paths) {
  return read_all(paths, nullptr);
}

}  // namespace collreplay::records
