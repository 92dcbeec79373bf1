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

int run_with_flags(int argc, char** argv, const std::string& description,
                   const std::function<void(CLI::App&)>& add_options,
                   const std::function<int()>& run) {
  CLI::App app{description};
  add_options(app);
  if (auto exit_code = parse_flags(app, argc, argv)) return *exit_code;
  return run();
}

}  // namespace collreplay
