#include "plots/report/markdown_numbers.hpp"

#include <cstdio>

#include "plots/plot_records.hpp"

namespace collreplay::plots {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string optional_fixed(const nlohmann::json& r, const std::string& path, int decimals) {
  const auto value = number_at(r, path);
  return value ? fixed(*value, decimals) : "-";
}

}  // namespace collreplay::plots
