// One record of a results file (JSON Lines: one measurement per line, run metadata under "run")
// and tolerant, typed access to its fields. Files written by older or newer builds lack fields or
// carry other types; every reader (plots, report, project, compare, advise) shows what it can
// instead of failing, so a missing or mistyped field is an empty optional, never an exception.
#pragma once
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace collreplay::records {

// The value at a '/'-separated path ("run/nodes"); null when a key on the way is missing.
const nlohmann::json* field_at(const nlohmann::json& r, std::string_view path);
// The value at `path` when it is there and of that type.
std::optional<double> number_at(const nlohmann::json& r, std::string_view path);
std::optional<std::string> text_at(const nlohmann::json& r, std::string_view path);

// The record's kind: its `record` field (perf, op, unit, step, counters, projection, ...), or
// "perf" without one (the *_perf executables wrote none before they wrote "perf").
std::string record_kind(const nlohmann::json& r);

struct Record {
  nlohmann::json data;  // always a JSON object
  std::string file;
  int line = 0;  // 1-based

  std::string kind() const { return record_kind(data); }
  // "file:line": the prefix of every message about this record.
  std::string where() const;
  // number_at / text_at on this record; a field that is there but of another type is also
  // reported on `warnings` (when given) as "file:line: 'path' is a string, not a number".
  std::optional<double> number(std::string_view path, std::ostream* warnings = nullptr) const;
  std::optional<std::string> text(std::string_view path, std::ostream* warnings = nullptr) const;
};

// The records of one kind, in the order they were read.
std::vector<const Record*> of_kind(const std::vector<Record>& records, std::string_view kind);

}  // namespace collreplay::records
