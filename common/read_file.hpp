// The whole of a text input file (a schedule, a trace); UsageError "cannot read <what> '<path>'"
// when it cannot be opened.
#pragma once
#include <string>

namespace collreplay {

std::string read_whole_file(const std::string& path, const std::string& what);

}  // namespace collreplay
