#include "workloads/plan/step/host_time_file.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/data_files.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

using nlohmann::json;

double figure(const json& doc, const char* key, const std::string& in_file) {
  const auto it = doc.find(key);
  if (it == doc.end() || !it->is_number())
    throw UsageError(in_file + ": no number '" + key + "' (per-launch host time in us)");
  const double us = it->get<double>();
  if (!std::isfinite(us) || us < 0)
    throw UsageError(in_file + ": '" + key + "' must be a finite number >= 0 (us), not " +
                     it->dump());
  return us;
}

std::string text_of(const json& doc, const char* key) {
  const auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : "unknown";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("--host-time: cannot read calibration '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

HostTimeSetting parse_host_time_calibration(const std::string& text, const std::string& path) {
  const std::string in_file = "--host-time calibration '" + path + "'";
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    throw UsageError(in_file + ": not a JSON object (write it with "
                     "sweeps/gpu/travels/host_time_calibrate.py)");
  HostTimeSetting s;
  s.per_launch = {figure(doc, "forward_us", in_file), figure(doc, "backward_us", in_file),
                  figure(doc, "optimizer_loop_us", in_file),
                  figure(doc, "optimizer_multi_us", in_file)};
  // Older calibrations hold per-launch figures alone.
  if (doc.contains("forward_fixed_us") || doc.contains("backward_fixed_us")) {
    s.per_launch.forward_fixed_us = figure(doc, "forward_fixed_us", in_file);
    s.per_launch.backward_fixed_us = figure(doc, "backward_fixed_us", in_file);
  }
  if (doc.contains("optimizer_multi_fixed_us"))
    s.per_launch.optimizer_multi_fixed_us = figure(doc, "optimizer_multi_fixed_us", in_file);
  if (doc.contains("optimizer_multi_tensor_us"))
    s.per_launch.optimizer_multi_tensor_us = figure(doc, "optimizer_multi_tensor_us", in_file);
  if (doc.contains("optimizer_fused_fixed_us") || doc.contains("optimizer_fused_tensor_us")) {
    s.per_launch.optimizer_fused_fixed_us = figure(doc, "optimizer_fused_fixed_us", in_file);
    s.per_launch.optimizer_fused_tensor_us = figure(doc, "optimizer_fused_tensor_us", in_file);
  }
  char figures[512];
  std::snprintf(figures, sizeof figures, "forward %.1f, backward %.1f, optimizer loop %.1f, "
                "multi-tensor %.1f us per launch; forward %.0f, backward %.0f us per pass, "
                "foreach optimizer %.0f us per step and %.1f per parameter tensor, fused "
                "optimizer %.0f us per step and %.1f per parameter tensor",
                s.per_launch.forward_us, s.per_launch.backward_us,
                s.per_launch.optimizer_loop_us, s.per_launch.optimizer_multi_us,
                s.per_launch.forward_fixed_us, s.per_launch.backward_fixed_us,
                s.per_launch.optimizer_multi_fixed_us, s.per_launch.optimizer_multi_tensor_us,
                s.per_launch.optimizer_fused_fixed_us, s.per_launch.optimizer_fused_tensor_us);
  // A host's time per launch depends on the CPUs its process may run on (on a VM, an unpinned
  // torch process measured 1.5x slower than one held to its cores): say which, when recorded.
  const std::string cpus = doc.contains("cpus") ? ", CPUs " + text_of(doc, "cpus") : "";
  s.source = std::string(figures) + ", calibrated on host " + text_of(doc, "host") + " (CPU " +
             text_of(doc, "cpu") + cpus + ", torch " + text_of(doc, "torch") + ", GPU " +
             text_of(doc, "gpu") + "; " + path + ")";
  return s;
}

HostTimeSetting host_time_setting(const std::string& value) {
  if (value == "eager") return {kEagerHostTime, kEagerHostTimeSource};
  if (value == "none") return {kNoHostTime, "none: a host that never holds the GPU back"};
  if (value == "calibrate") {
    const std::string path = find_data_file(kHostTimeCalibrationFile);
    if (path.empty())
      throw UsageError(std::string("--host-time calibrate: no calibration (") +
                       kHostTimeCalibrationFile + "): run python3 sweeps/gpu/travels/host_time_calibrate.py "
                       "on this host (needs torch and a GPU), or give --host-time FILE or eager");
    return parse_host_time_calibration(read_file(path), path);
  }
  if (value.find('/') == std::string::npos && value.find(".json") == std::string::npos)
    throw UsageError("unknown --host-time '" + value +
                     "' (expected eager, none, calibrate or a calibration .json file)");
  return parse_host_time_calibration(read_file(value), value);
}

}  // namespace collreplay
