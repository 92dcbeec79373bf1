// --host-time as replay and project take it: eager (the defaults of host_time.hpp, said with the
// machine they were read on), none, calibrate (the calibration this checkout's build holds,
// gen/host_time.json, written on the run host by sweeps/gpu/travels/host_time_calibrate.py), or the path
// of such a calibration file. The file is a JSON object:
//   {"record": "host_time_calibration", "host": "...", "cpu": "...", "torch": "2.11.0+cu130",
//    "gpu": "...", "forward_us": 41.2, "backward_us": 30.5, "optimizer_loop_us": 60.1,
//    "optimizer_multi_us": 8.0, "cpus": "2-5 (taskset)", ...}
// each figure per launch that replay issues; optionally the per-pass costs (forward_fixed_us,
// backward_fixed_us) and the foreach and fused steps' costs per step and per parameter tensor
// (optimizer_multi_fixed_us, optimizer_multi_tensor_us, optimizer_fused_fixed_us with
// optimizer_fused_tensor_us); more fields are kept for the reader's eyes: the launches and host
// times they come from.
#pragma once
#include <string>

#include "workloads/plan/step/host_time.hpp"

namespace collreplay {

struct HostTimeSetting {
  HostTimePerLaunch per_launch;
  std::string source;  // where the figures come from, in words, for the run's header
};

// Where `calibrate` looks, relative to a data root (common/data_files.hpp): the build tree's gen/.
inline constexpr const char* kHostTimeCalibrationFile = "build/gen/host_time.json";

// The setting named by --host-time VALUE. UsageError (one line) for an unknown value, a missing,
// unreadable or malformed calibration file, a figure missing, not a number, negative or not
// finite.
HostTimeSetting host_time_setting(const std::string& value);

// The calibration in `text` (read from `path`, named in errors).
HostTimeSetting parse_host_time_calibration(const std::string& text, const std::string& path);

}  // namespace collreplay
