// Numbers as report.md prints them: fixed decimals, and "-" where a record lacks the field.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace collreplay::plots {

std::string fixed(double value, int decimals = 2);
// The number at `path` of record `r` (records/record.hpp's number_at), or "-".
std::string optional_fixed(const nlohmann::json& r, const std::string& path, int decimals = 2);

}  // namespace collreplay::plots
