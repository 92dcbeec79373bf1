// Where tests find their fixtures: tests/fixtures/<folder> from the repository root (the
// working directory of `make test`), else two levels above the test binary.
#pragma once
#include <filesystem>
#include <string>

#include "tests/support/subprocess.hpp"

namespace collreplay::test_support {

// A folder of tests/fixtures ("results", "traces"), found either way.
inline std::string fixtures(const std::string& folder, const std::string& sub = "") {
  namespace fs = std::filesystem;
  fs::path root = "tests/fixtures/" + folder;
  if (!fs::exists(root))
    root = cli_test::bin_dir().parent_path().parent_path() / "tests/fixtures" / folder;
  return (sub.empty() ? root : root / sub).string();
}

inline std::string results_fixtures(const std::string& sub = "") {
  return fixtures("results", sub);
}

}  // namespace collreplay::test_support
