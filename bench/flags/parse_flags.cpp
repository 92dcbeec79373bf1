#include "bench/flags/parse_flags.hpp"

#include <CLI/CLI.hpp>

#include "bench/app/guarded_main.hpp"
#include "common/errors.hpp"

namespace collreplay {

std::optional<int> parse_flags(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return launcher_rank() == 0 ? app.exit(e) : 0;  // --help, once however many ranks
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  return std::nullopt;
}

}  // namespace collreplay
