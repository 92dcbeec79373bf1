#include "records/csv_table.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "common/errors.hpp"

namespace collreplay {
namespace {

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) fields.push_back(trimmed(field));
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

}  // namespace

CsvTable::CsvTable(const std::string& path, const std::string& what) : path_(path) {
  std::ifstream in(path);
  if (!in) throw UsageError(what + ": cannot read '" + path + "'");
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string text = trimmed(line);
    if (text.empty() || text[0] == '#') continue;
    if (header_line_ == 0) {
      header_line_ = number;
      const std::vector<std::string> names = fields_of(text);
      for (std::size_t i = 0; i < names.size(); ++i) column_[names[i]] = i;
    } else {
      rows_.push_back({number, fields_of(text)});
    }
  }
  if (header_line_ == 0) throw UsageError(path_ + ": no header line");
}

void CsvTable::require_columns(const std::vector<std::string>& names,
                               const std::string& hint) const {
  for (const std::string& name : names)
    if (!has_column(name))
      throw UsageError(path_ + ":" + std::to_string(header_line_) + ": missing column '" + name +
                       "' (" + hint + ")");
}

void CsvTable::fail(std::size_t row, const std::string& what) const {
  throw UsageError(path_ + ":" + std::to_string(line(row)) + ": " + what);
}

const std::string& CsvTable::text(std::size_t row, const std::string& name) const {
  const auto it = column_.find(name);
  const std::vector<std::string>& fields = rows_.at(row).fields;
  if (it == column_.end() || it->second >= fields.size() || fields[it->second].empty())
    fail(row, "no value for '" + name + "'");
  return fields[it->second];
}

std::string CsvTable::optional_text(std::size_t row, const std::string& name) const {
  const auto it = column_.find(name);
  const std::vector<std::string>& fields = rows_.at(row).fields;
  return it == column_.end() || it->second >= fields.size() ? "" : fields[it->second];
}

double CsvTable::positive(std::size_t row, const std::string& name, bool integer) const {
  const std::string& value_text = text(row, name);
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(value_text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value_text.size() || !std::isfinite(value) || value <= 0 ||
      (integer && (value != std::floor(value) || value > 1e9)))
    fail(row, name + " '" + value_text + "' is not a positive " +
                  (integer ? "integer" : "number"));
  return value;
}

}  // namespace collreplay
