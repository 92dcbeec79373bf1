// `project --check FIXTURE...`: every row of the published-throughput fixtures predicted by
// project's own projection (the row's fabric profile with the measured intra-node tier, compute
// model:GPU at the default MFU unless the row says otherwise), series by series against the band;
// the fixtures' declared rows calibrate the projection's intervals (interval/scaling_interval.hpp)
// and every held-out point is checked for lying inside its interval.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "bench/project/check/check_memory.hpp"
#include "bench/project/check/check_series.hpp"
#include "bench/project/interval/scaling_interval.hpp"
#include "bench/project/project_cli.hpp"

namespace collreplay::project {

struct CheckedSeries {
  SeriesCheck check;
  std::string compute;  // the compute model of the series' first point
  std::string fabric;   // the fabric profile of the series' first point
  std::vector<MemoryVerdict> memory;  // each row's step against its GPU's memory
};

struct CheckReport {
  std::vector<CheckedSeries> series;
  IntervalCalibration calibration;  // from the declared rows of the fixtures checked
};

// Reads every fixture of options.check (UsageError on a bad one: nothing is projected), projects
// each row, judges each series and sets every point's interval from the fixtures' declared rows,
// or, when they declare none, from the committed fixtures' (published_calibration).
CheckReport check_fixtures(const ProjectOptions& options);

// Prints the tables (check_report.hpp) and returns 0 when every judged series passes and every
// row's step fits its GPU, 1 otherwise.
int run_check(const ProjectOptions& options, std::ostream& out);

// The committed fixtures (tests/fixtures/published/*.csv, found as the project's data is: common/
// data_files.hpp), whose declared rows set every projection's intervals.
inline constexpr const char* kPublishedFixtures = "tests/fixtures/published";
std::vector<std::string> published_fixture_files();

// The intervals' calibration from the declared rows of the committed fixtures, projected as
// `project --check` projects them with its defaults (the committed fabric profiles, the measured
// intra-node tier and catalog), whatever the caller's flags: every program's intervals are the
// same. What `project`, and whoever prints a projected figure, calls once and hands to
// apply_intervals (interval/scaling_interval.hpp). UsageError when the fixtures are not found.
IntervalCalibration published_calibration();

}  // namespace collreplay::project
