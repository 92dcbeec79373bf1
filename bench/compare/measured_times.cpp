#include "bench/compare/measured_times.hpp"

#include <cmath>

#include "common/errors.hpp"

namespace collreplay::compare {
namespace {

double time_at(const records::Record& r, const std::string& path) {
  const std::optional<double> value = r.number(path);
  if (!value)
    throw UsageError(r.where() + ": " + r.kind() + " record has no number '" + path + "'");
  if (!(*value >= 0) || !std::isfinite(*value))
    throw UsageError(r.where() + ": '" + path + "' is not a time >= 0");
  return *value;
}

// The list at `path`; empty when the record has none (written before samples were recorded).
std::vector<double> samples_at(const records::Record& r, const std::string& path) {
  const nlohmann::json* list = records::field_at(r.data, path);
  std::vector<double> samples;
  if (!list || list->is_null()) return samples;
  if (!list->is_array()) throw UsageError(r.where() + ": '" + path + "' is not a list of times");
  for (const nlohmann::json& v : *list) {
    if (!v.is_number() || !(v.get<double>() >= 0) || !std::isfinite(v.get<double>()))
      throw UsageError(r.where() + ": '" + path + "' holds " + v.dump() + ", not a time >= 0");
    samples.push_back(v.get<double>());
  }
  return samples;
}

}  // namespace

bool is_compared_kind(const std::string& kind) {
  return kind == "perf" || kind == "step" || kind == "unit";
}

std::vector<MeasuredTime> measured_times(const records::Record& r) {
  const std::string kind = r.kind();
  if (kind == "perf") {
    // time_p50_us is the samples' median; older records have only the mean.
    const std::string path = r.number("time_p50_us") ? "time_p50_us" : "time_us";
    return {{"time_us", time_at(r, path), samples_at(r, "time_samples_us")}};
  }
  if (kind == "step") {
    std::vector<MeasuredTime> times;
    for (const char* pass : {"compute_only", "comm_only", "overlapped"}) {
      const std::string at = std::string("passes/") + pass;
      times.push_back({std::string(pass) + " step_ms", time_at(r, at + "/step_ms"),
                       samples_at(r, at + "/step_samples_ms")});
    }
    return times;
  }
  if (kind == "unit")
    return {{"compute_ms", time_at(r, "compute_ms"), {}}, {"comm_ms", time_at(r, "comm_ms"), {}}};
  throw UsageError(r.where() + ": compare does not set " + kind + " records side by side");
}

}  // namespace collreplay::compare
