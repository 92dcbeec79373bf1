#pragma once
// CLI11's classes by name only, for headers that declare a function taking a CLI::App: a
// translation unit that includes CLI/CLI.hpp compiles CLI11's validators (namespace-scope objects
// every unit constructs), about 4 s each at -O2, so only the units that add options include it.
namespace CLI {
class App;
class Option;
}  // namespace CLI
