// Paths of the published Hugging Face config.json fixtures (tests/fixtures/hf/<repo>/).
#pragma once
#include <string>

namespace collreplay::test {

inline std::string hf_folder(const std::string& repo) {
  const std::string here = __FILE__;
  return here.substr(0, here.rfind('/')) + "/../../fixtures/hf/" + repo;
}

inline std::string hf_config(const std::string& repo) { return hf_folder(repo) + "/config.json"; }

}  // namespace collreplay::test
