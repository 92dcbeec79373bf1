// Where tests find the fixture results: tests/fixtures/results from the repository root (the
// working directory of `make test`), else two levels above the test binary.
#pragma once
#include <filesystem>
#include <string>

#include "tests/support/subprocess.hpp"

namespace collreplay::test_support {

inline std::string results_fixtures(const std::string& sub = "") {
  namespace fs = std::filesystem;
  fs::path root = "tests/fixtures/results";
  if (!fs::exists(root))
    root = cli_test::bin_dir().parent_path().parent_path() / "tests/fixtures/results";
  return (sub.empty() ? root : root / sub).string();
}

}  // namespace collreplay::test_support
