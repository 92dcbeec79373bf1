#include "common/data_files.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "common/errors.hpp"

#ifndef COLLREPLAY_SOURCE_DIR
#define COLLREPLAY_SOURCE_DIR ""
#endif

namespace collreplay {
namespace fs = std::filesystem;

std::vector<std::string> data_roots() {
  std::vector<std::string> roots;
  if (const char* data = std::getenv("COLLREPLAY_DATA"); data != nullptr && *data != '\0')
    roots.emplace_back(data);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
      roots.push_back(dir.string());
      roots.push_back((dir / "share" / "collreplay").string());
      if (dir == dir.root_path()) break;
    }
  }
  if (std::string_view(COLLREPLAY_SOURCE_DIR).size() > 0) roots.emplace_back(COLLREPLAY_SOURCE_DIR);
  return roots;
}

std::string find_data_file(std::string_view relative) {
  std::error_code ec;
  for (const std::string& root : data_roots()) {
    const fs::path candidate = fs::path(root) / relative;
    if (fs::exists(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return "";
}

std::string require_data_file(std::string_view relative, std::string_view override_hint) {
  std::string found = find_data_file(relative);
  if (!found.empty()) return found;
  throw UsageError("cannot find " + std::string(relative) +
                   " in COLLREPLAY_DATA, beside the executable or in the checkout it was built "
                   "from (" + std::string(COLLREPLAY_SOURCE_DIR) + "): give " +
                   std::string(override_hint));
}

}  // namespace collreplay
