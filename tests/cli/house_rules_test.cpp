// The checks that hold the tree's layout (run by tests/run_all.sh on the repository) catch what
// they exist for: an include that points up a floor, plots reaching into the benchmark, a room
// missing from the floor list, a folder of more than 15 sources, a file over 400 lines, a function
// body over 100 lines.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

class HouseRules : public ScratchDirTest {
 protected:
  void write(const std::string& path, const std::string& text) {
    fs::create_directories((dir_ / path).parent_path());
    std::ofstream(dir_ / path) << text;
  }
  Outcome check(const std::string& script) {
    return run(fs::absolute("tests/" + script).string() + " " + dir_.string());
  }
};

TEST_F(HouseRules, LayeringNamesEveryIncludeThatPointsUp) {
  write("bench/compute/engine.cpp", "#include \"bench/app/stats.hpp\"\n#include <vector>\n");
  write("bench/replay/run.cpp", "#include \"bench/compute/engine.hpp\"\n");
  write("records/record.cpp", "#include \"common/errors.hpp\"\n");
  EXPECT_EQ(check("layering.sh").exit_code, 0) << "downward includes are the design";

  write("bench/executor/executor.hpp",
        "// the plan\n#include \"bench/replay/collective_plan.hpp\"\n");
  write("plots/fig.cpp", "#include \"records/record.hpp\"\n#include \"bench/app/results.hpp\"\n");
  write("common/sizes.cpp", "#include \"collectives/communicator.hpp\"\n");
  write("bench/newroom/thing.cpp", "#include \"bench/app/stats.hpp\"\n");
  const Outcome o = check("layering.sh");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.out.find("bench/executor/executor.hpp:2: bench/executor includes "
                       "bench/replay/collective_plan.hpp"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("plots/fig.cpp:2: plots includes bench/app/results.hpp"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("common/sizes.cpp:1: common includes collectives/communicator.hpp"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("bench/newroom is not a room"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("4 include(s) point up"), std::string::npos) << o.out;
}

TEST_F(HouseRules, RoomSizesNameCrowdedFoldersAndLongFiles) {
  for (int i = 0; i < 15; ++i) write("bench/app/f" + std::to_string(i) + ".cpp", "\n");
  write("bench/app/README.md", "not a source\n");
  write("plots/long.py", std::string(400, '\n'));
  EXPECT_EQ(check("room_sizes.sh").exit_code, 0) << "15 sources and 400 lines are allowed";

  write("bench/app/f15.hpp", "\n");
  write("plots/long.py", std::string(401, '\n'));
  const Outcome o = check("room_sizes.sh");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.out.find("bench/app/: 16 source files"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("plots/long.py: 401 lines"), std::string::npos) << o.out;
}

// A C++ function of `body_lines` lines between its braces, whose body holds braces in strings, a
// character literal, comments and a raw string (none of which open or close anything) and a
// lambda (which is part of the function), after a namespace, a class and a table.
std::string function_of(const std::string& name, int body_lines) {
  std::string text =
      "namespace ns {\nstruct Pair { int a{1}; };\nconst int kTable[] = {\n1,\n2};\n"
      "int " + name + "(int x)\n{\n"
      "  auto twice = [](int y) {\n    return 2 * y;  // }\n  };\n"
      "  const char* s = \"}}\"; /* { */ char c = '{';\n"
      "  const char* raw = R\"(\n}\n)\";\n";
  for (int line = 8; line < body_lines; ++line) text += "  x += 1;\n";
  return text + "  return twice(x) + s[0] + c + raw[0];\n}\n}  // namespace ns\n";
}

TEST_F(HouseRules, RoomSizesNameFunctionsOverAHundredLines) {
  write("bench/app/fits.cpp", function_of("fits", 100));
  write("bench/app/short.hpp", "inline int f() { return 1; }\n" + function_of("fits_too", 100));
  EXPECT_EQ(check("room_sizes.sh").exit_code, 0) << "a body of 100 lines is allowed";

  write("bench/app/long.cpp", function_of("too_long", 101));
  const Outcome o = check("room_sizes.sh");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.out.find("bench/app/long.cpp:6: too_long is 101 lines (at most 100)"),
            std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("fits"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace collreplay::cli_test
