// What one record measured, as `compare` sets it against the other side: a named time and the
// per-iteration samples behind it, where the record carries them.
//   perf: the op's time (time_samples_us: one sample per timed iteration or group of ops)
//   step: each pass's step time (passes.<pass>.step_samples_ms: one per timed step)
//   unit: compute_ms and comm_ms, medians over the steps: no samples, so changes are shown
//         but not tested
// Records written before the samples were recorded get their summary time and no samples.
#pragma once
#include <string>
#include <vector>

#include "records/record.hpp"

namespace collreplay::compare {

struct MeasuredTime {
  std::string metric;           // "time_us", "overlapped step_ms", "comm_ms"
  double value = 0;             // the record's own figure: a median
  std::vector<double> samples;  // empty: the record carries none
};

// The kinds of record compare sets side by side; others (op, counters, ...) are left alone.
bool is_compared_kind(const std::string& kind);

// The times of one record of a compared kind, in a fixed order per kind. UsageError naming the
// record (file:line) when a time is missing, not a number, negative, or a sample list is not a
// list of such numbers.
std::vector<MeasuredTime> measured_times(const records::Record& record);

}  // namespace collreplay::compare
