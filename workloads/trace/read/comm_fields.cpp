#include "workloads/trace/read/comm_fields.hpp"

#include <optional>

#include "common/errors.hpp"

namespace collreplay::trace {
namespace {

using nlohmann::json;

// A number written as a JSON number or as a string of digits; nullopt when absent.
std::optional<std::int64_t> optional_integer(const json& args, const char* key,
                                             const std::string& where) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return std::nullopt;
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (it->is_string()) {
    try {
      std::size_t used = 0;
      const std::int64_t v = std::stoll(it->get<std::string>(), &used);
      if (used == it->get<std::string>().size()) return v;
    } catch (const std::exception&) {
    }
  }
  throw UsageError(where + ": '" + key + "' is not an integer");
}

std::int64_t integer(const json& args, const char* key, const std::string& where) {
  const std::optional<std::int64_t> v = optional_integer(args, key, where);
  if (!v) throw UsageError(where + " has no '" + key + "' (profile with record_shapes=True)");
  return *v;
}

struct IntList {
  std::vector<std::int64_t> values;
  bool cut = false;  // torch wrote the first 30 and "..."
};

// "[0, 1, 2]" (torch's format_list) or a JSON array; "..." marks a list torch cut short.
IntList int_list(const json& value, const char* key, const std::string& where) {
  IntList out;
  if (value.is_array()) {
    for (const json& v : value)
      if (v.is_number_integer()) out.values.push_back(v.get<std::int64_t>());
    return out;
  }
  const std::string text = value.is_string() ? value.get<std::string>() : "";
  std::string digits;
  for (char c : text + ",") {
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if (c == ',' || c == ']') {
      if (!digits.empty()) out.values.push_back(std::stoll(digits));
      digits.clear();
    } else if (c == '.') {
      out.cut = true;
    } else if (c != '[' && c != ' ' && c != '"') {
      throw UsageError(where + ": '" + key + "' '" + text + "' is not a list of integers");
    }
  }
  return out;
}

std::vector<int> as_ranks(const std::vector<std::int64_t>& values) {
  return std::vector<int>(values.begin(), values.end());
}

std::vector<int> group_ranks(const json& args, const std::string& where,
                             const ProcessGroups& groups, int world) {
  if (auto it = args.find("Process Group Ranks"); it != args.end()) {
    const IntList listed = int_list(*it, "Process Group Ranks", where);
    if (!listed.cut && !listed.values.empty()) return as_ranks(listed.values);
  }
  if (auto it = args.find("Process Group Name"); it != args.end() && it->is_string())
    if (auto g = groups.find(it->get<std::string>()); g != groups.end() && !g->second.empty())
      return g->second;
  const std::optional<std::int64_t> size = optional_integer(args, "Group size", where);
  const std::optional<std::int64_t> start = optional_integer(args, "Global rank start", where);
  if (size && *size > 0 && *size <= world && start && *start >= 0) {
    const std::int64_t stride = optional_integer(args, "Global rank stride", where).value_or(1);
    std::vector<int> ranks;
    for (std::int64_t i = 0; i < *size; ++i) ranks.push_back(static_cast<int>(*start + i * stride));
    return ranks;
  }
  if (size && *size == world) {
    std::vector<int> all(static_cast<std::size_t>(world));
    for (int r = 0; r < world; ++r) all[static_cast<std::size_t>(r)] = r;
    return all;
  }
  throw UsageError(where +
                   " has no 'Process Group Ranks' (nor a process group of "
                   "distributedInfo, nor 'Global rank start' with 'Group size')");
}

bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

}  // namespace

bool is_coalesced_name(const std::string& name) { return has(name, "coalesced"); }

TraceCollective comm_fields(const json& args, const std::string& where, const ProcessGroups& groups,
                            int world) {
  TraceCollective c;
  auto name = args.find("Collective name");
  if (name == args.end() || !name->is_string())
    throw UsageError(where + " has no 'Collective name' (profile with record_shapes=True)");
  c.name = name->get<std::string>();
  c.in_nelems = integer(args, "In msg nelems", where);
  c.out_nelems = integer(args, "Out msg nelems", where);
  auto dtype = args.find("dtype");
  if (dtype == args.end() || !dtype->is_string())
    throw UsageError(where + " has no 'dtype' (profile with record_shapes=True)");
  c.dtype = dtype->get<std::string>();
  c.ranks = group_ranks(args, where, groups, world);
  if (has(c.name, "alltoall") || has(c.name, "all_to_all"))
    for (auto [key, into] :
         {std::pair{"In split size", &c.in_splits}, std::pair{"Out split size", &c.out_splits}})
      if (auto it = args.find(key); it != args.end()) {
        const IntList splits = int_list(*it, key, where);
        if (splits.cut)
          throw UsageError(where + ": torch cut '" + key + "' short (a group of over 30 ranks): " +
                           "the per-rank sizes of this all-to-all are not in the trace");
        *into = splits.values;
      }
  c.rank_field = static_cast<int>(optional_integer(args, "Rank", where).value_or(-1));
  const char* peer_key = c.name == "send" ? "Dst Rank" : c.name == "recv" ? "Src Rank" : nullptr;
  if (peer_key) c.peer = static_cast<int>(optional_integer(args, peer_key, where).value_or(-1));
  return c;
}

}  // namespace collreplay::trace
