// A hand-written comma-separated table, as the project's data files are (observed throughput,
// published clusters): blank lines and lines starting with '#' are skipped, the first other line
// is the header, columns come in any order and extra ones are ignored, fields are trimmed. Every
// problem is a UsageError that names "path:line:" so the user can open the place.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace collreplay {

class CsvTable {
 public:
  // Reads `path`; UsageError "<what>: cannot read 'path'" or "path: no header line".
  CsvTable(const std::string& path, const std::string& what);

  const std::string& path() const { return path_; }
  std::size_t size() const { return rows_.size(); }
  int line(std::size_t row) const { return rows_.at(row).line; }
  bool has_column(const std::string& name) const { return column_.count(name) > 0; }

  // UsageError "path:HEADER_LINE: missing column 'name' (hint)" for the first one absent.
  void require_columns(const std::vector<std::string>& names, const std::string& hint) const;
  // The field; UsageError "path:line: no value for 'name'" when empty or absent.
  const std::string& text(std::size_t row, const std::string& name) const;
  // The field, or "" when the column is absent or the field empty.
  std::string optional_text(std::size_t row, const std::string& name) const;
  // A finite positive number (integers where counts are meant: `integer`, at most 1e9);
  // UsageError "path:line: name 'text' is not a positive integer|number".
  double positive(std::size_t row, const std::string& name, bool integer) const;
  [[noreturn]] void fail(std::size_t row, const std::string& what) const;

 private:
  struct Row {
    int line = 0;
    std::vector<std::string> fields;
  };
  std::string path_;
  int header_line_ = 0;
  std::map<std::string, std::size_t> column_;
  std::vector<Row> rows_;
};

}  // namespace collreplay
