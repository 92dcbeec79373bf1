// Byte sizes as users type them (nccl-tests style: 1K, 16M, 4G) and overflow-checked arithmetic.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace collreplay {

// "4096", "1K", "16M", "4G", "1T" (powers of 1024; a trailing 'B' or "iB" is accepted).
// Throws UsageError naming `what` for negative, malformed or over-2^63 values.
std::uint64_t parse_bytes(std::string_view text, std::string_view what);

// "64 MiB"-style rendering for tables and messages.
std::string format_bytes(std::uint64_t bytes);

// a * b, throwing UsageError naming `what` when the product does not fit in 63 bits.
std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view what);
std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, std::string_view what);

}  // namespace collreplay
