// Parses a program's command line into the options its flags were added for. --help prints once
// (on the launcher's rank 0) and gives the exit code for main to return; a bad flag is a
// UsageError, which guarded_main turns into one line and exit 2.
#pragma once
#include <optional>

#include "bench/app/run/cli_names.hpp"

namespace collreplay {

// Empty when the program is to run; else the code to exit with (--help).
std::optional<int> parse_flags(CLI::App& app, int argc, char** argv);

}  // namespace collreplay
