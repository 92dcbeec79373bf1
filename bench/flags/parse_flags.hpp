// Parses a program's command line into the options its flags were added for. --help prints once
// (on the launcher's rank 0) and gives the exit code for main to return; a bad flag is a
// UsageError, which guarded_main turns into one line and exit 2.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "bench/app/run/cli_names.hpp"

namespace collreplay {

// Empty when the program is to run; else the code to exit with (--help).
std::optional<int> parse_flags(CLI::App& app, int argc, char** argv);

// The body of a program whose options all go into one app: `add_options` registers them on an
// app described by `description`, the command line is parsed (parse_flags), then `run` gives the
// exit code. A main built on it does not compile CLI11 itself.
int run_with_flags(int argc, char** argv, const std::string& description,
                   const std::function<void(CLI::App&)>& add_options,
                   const std::function<int()>& run);

}  // namespace collreplay
