#include "common/sizes.hpp"

#include <cctype>
#include <cstdio>
#include <limits>

#include "common/errors.hpp"

namespace collreplay {
namespace {
constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 62;

UsageError bad_size(std::string_view text, std::string_view what, std::string_view why) {
  return UsageError(std::string(what) + ": '" + std::string(text) + "' " + std::string(why));
}
}  // namespace

std::uint64_t parse_bytes(std::string_view text, std::string_view what) {
  std::string_view s = text;
  if (s.empty()) throw bad_size(text, what, "is empty");
  if (s.front() == '-') throw bad_size(text, what, "is negative");
  std::uint64_t value = 0;
  std::size_t i = 0;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
    const std::uint64_t digit = static_cast<std::uint64_t>(s[i] - '0');
    if (value > (kMaxBytes - digit) / 10) throw bad_size(text, what, "is too large");
    value = value * 10 + digit;
  }
  if (i == 0) throw bad_size(text, what, "is not a size (examples: 4096, 1K, 16M, 4G)");
  std::string_view suffix = s.substr(i);
  std::uint64_t scale = 1;
  if (!suffix.empty()) {
    switch (std::toupper(static_cast<unsigned char>(suffix.front()))) {
      case 'K': scale = std::uint64_t{1} << 10; break;
      case 'M': scale = std::uint64_t{1} << 20; break;
      case 'G': scale = std::uint64_t{1} << 30; break;
      case 'T': scale = std::uint64_t{1} << 40; break;
      case 'B': scale = 1; break;
      default: throw bad_size(text, what, "has an unknown unit (use K, M, G or T)");
    }
    std::string_view rest = suffix.substr(1);
    if (scale != 1 && (rest == "iB" || rest == "ib" || rest == "B" || rest == "b")) rest = {};
    if (!rest.empty()) throw bad_size(text, what, "has an unknown unit (use K, M, G or T)");
  }
  if (value > kMaxBytes / scale) throw bad_size(text, what, "is too large");
  return value * scale;
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024.0 && unit < 4) {
    v /= 1024.0;
    ++unit;
  }
  char buf[32];
  if (unit == 0 || v == static_cast<double>(static_cast<std::uint64_t>(v)))
    std::snprintf(buf, sizeof buf, "%.0f %s", v, kUnits[unit]);
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", v, kUnits[unit]);
  return buf;
}

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view what) {
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 63;
  if (a != 0 && b > (kLimit - 1) / a)
    throw UsageError(std::string(what) + " overflows 64 bits (" + std::to_string(a) + " x " +
                     std::to_string(b) + ")");
  return a * b;
}

std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, std::string_view what) {
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 63;
  if (a >= kLimit || b >= kLimit - a) throw UsageError(std::string(what) + " overflows 64 bits");
  return a + b;
}

}  // namespace collreplay
