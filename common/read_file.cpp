#include "common/read_file.hpp"

#include <fstream>
#include <sstream>

#include "common/errors.hpp"

namespace collreplay {

std::string read_whole_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read " + what + " '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace collreplay
