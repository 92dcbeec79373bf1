// The one rule by which every program finds the project's data (fabric profiles, measured fits,
// the reference scripts): by the data file's path relative to the checkout, e.g.
// "sweeps/fabrics.tsv". Looked for, first found wins:
//   0. COLLREPLAY_DATA, when set: a folder laid out like the checkout, for binaries moved to a
//      machine without it (the escape hatch, not the mechanism: nothing needs it set);
//   1. beside the executable: in each folder from the executable's own up to /, as
//      <folder>/<relative> (build/bin, or any build tree inside a checkout) and as
//      <folder>/share/collreplay/<relative> (an install prefix: PREFIX/bin beside
//      PREFIX/share/collreplay, as `make install` lays it out);
//   2. the checkout the executable was built from (its path is compiled in), so a copy of the
//      binaries in another folder of the same machine still finds its data.
// A program's own flag (--fabrics-file, --intra, ...) always comes before this rule.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace collreplay {

// The folders searched, in order (each holds paths relative to a checkout).
std::vector<std::string> data_roots();

// The absolute path of `relative` under the first root that holds it; "" when none does.
std::string find_data_file(std::string_view relative);

// As find_data_file, but a UsageError naming what was looked for, where, and `override_hint`
// (the flag that gives the file directly) when none holds it.
std::string require_data_file(std::string_view relative, std::string_view override_hint);

}  // namespace collreplay
