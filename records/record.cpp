#include "records/record.hpp"

#include <algorithm>
#include <ostream>

namespace collreplay::records {
namespace {

using TypeTest = bool (nlohmann::json::*)() const noexcept;

// The field at `path` when `is_wanted` holds for it; when it holds something else, says so on
// `warnings` (if any) and gives null.
const nlohmann::json* typed_field(const Record& r, std::string_view path, TypeTest is_wanted,
                                  const char* wanted, std::ostream* warnings) {
  const nlohmann::json* node = field_at(r.data, path);
  if (!node || (node->*is_wanted)()) return node;
  if (warnings) {
    const std::string_view type = node->type_name();
    const char* article = type == "null"                               ? ""
                          : type.front() == 'a' || type.front() == 'o' ? "an "
                                                                       : "a ";
    *warnings << r.where() << ": '" << path << "' is " << article << type << ", not " << wanted
              << "\n";
  }
  return nullptr;
}

}  // namespace

const nlohmann::json* field_at(const nlohmann::json& r, std::string_view path) {
  const nlohmann::json* node = &r;
  std::size_t from = 0;
  while (from <= path.size()) {
    const std::size_t slash = std::min(path.find('/', from), path.size());
    if (!node->is_object()) return nullptr;
    const auto it = node->find(std::string(path.substr(from, slash - from)));
    if (it == node->end()) return nullptr;
    node = &*it;
    from = slash + 1;
  }
  return node;
}

std::optional<double> number_at(const nlohmann::json& r, std::string_view path) {
  const nlohmann::json* node = field_at(r, path);
  if (!node || !node->is_number()) return std::nullopt;
  return node->get<double>();
}

std::optional<std::string> text_at(const nlohmann::json& r, std::string_view path) {
  const nlohmann::json* node = field_at(r, path);
  if (!node || !node->is_string()) return std::nullopt;
  return node->get<std::string>();
}

std::string record_kind(const nlohmann::json& r) { return text_at(r, "record").value_or("perf"); }

std::string Record::where() const { return file + ":" + std::to_string(line); }

std::optional<double> Record::number(std::string_view path, std::ostream* warnings) const {
  const nlohmann::json* node =
      typed_field(*this, path, &nlohmann::json::is_number, "a number", warnings);
  if (!node) return std::nullopt;
  return node->get<double>();
}

std::optional<std::string> Record::text(std::string_view path, std::ostream* warnings) const {
  const nlohmann::json* node =
      typed_field(*this, path, &nlohmann::json::is_string, "a string", warnings);
  if (!node) return std::nullopt;
  return node->get<std::string>();
}

std::vector<const Record*> of_kind(const std::vector<Record>& records, std::string_view kind) {
  std::vector<const Record*> found;
  for (const Record& r : records)
    if (r.kind() == kind) found.push_back(&r);
  return found;
}

}  // namespace collreplay::records
