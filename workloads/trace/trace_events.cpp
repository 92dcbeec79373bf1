#include "workloads/trace/trace_events.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "workloads/trace/read/comm_fields.hpp"
#include "workloads/trace/read/op_flops.hpp"
#include "workloads/trace/read/trace_file.hpp"

namespace collreplay::trace {
namespace {

using nlohmann::json;

bool is_gpu_work(const std::string& cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
}
bool is_launcher(const std::string& cat) { return cat == "cuda_runtime" || cat == "cuda_driver"; }
bool is_host(const std::string& cat) {
  return is_launcher(cat) || cat == "cpu_op" || cat == "user_annotation" ||
         cat == "python_function";
}
// Host calls that return only when the GPU has caught up: their time is the GPU's, not the host's.
// cudaMemcpyAsync too: a copy to or from pageable memory (.tolist(), .item(), .cpu()) returns
// when it is done; one that only queues returns in microseconds, so counting it costs nothing.
bool blocks_on_gpu(const std::string& cat, const std::string& name) {
  return cat == "cuda_runtime" && (name.find("Synchronize") != std::string::npos ||
                                   name == "cudaMemcpy" || name == "cudaMemcpyAsync");
}
bool is_launch(const std::string& cat, const std::string& name) {
  return is_launcher(cat) && (name.find("Launch") != std::string::npos ||
                              name.find("Memset") != std::string::npos);
}
bool is_p2p(const std::string& name) { return name == "send" || name == "recv"; }
// record_param_comms events of calls that launch no NCCL work of their own (torch 2.11 records
// "wait" for Work::wait and "init" for a new group's communicator).
bool launches_nothing(const std::string& name) {
  return name == "wait" || name == "init" || name == "split" || name == "abort" ||
         name == "shrink";
}

std::string at_ts(double ts_us) {
  char text[64];
  std::snprintf(text, sizeof text, " at ts %.3f us", ts_us);
  return text;
}

struct Step {
  int n = 0;
  double start_us = 0, dur_us = 0;
};

// ProfilerStep#N spans of the host (the GPU's copies, gpu_user_annotation, are left out).
std::vector<Step> profiler_steps(const json& events) {
  std::map<int, Step> steps;
  for (const json& e : events) {
    if (!e.is_object() || e.value("ph", "") != "X") continue;
    const std::string name = e.value("name", ""), cat = e.value("cat", "");
    if (name.rfind("ProfilerStep#", 0) != 0 || cat.rfind("gpu_", 0) == 0) continue;
    int n = 0;
    try {
      n = std::stoi(name.substr(13));
    } catch (const std::exception&) {
      continue;
    }
    steps.emplace(n, Step{n, e.value("ts", 0.0), e.value("dur", 0.0)});
  }
  std::vector<Step> out;
  for (const auto& [n, s] : steps) out.push_back(s);
  std::sort(out.begin(), out.end(),
            [](const Step& a, const Step& b) { return a.start_us < b.start_us; });
  return out;
}

std::string step_list(const std::vector<Step>& steps) {
  std::string text;
  for (const Step& s : steps) text += (text.empty() ? "" : ", ") + std::to_string(s.n);
  return text;
}

// The step `wanted`, or the one of median duration (the lower of two) when wanted < 0.
Step chosen_step(const std::vector<Step>& steps, int wanted, const std::string& path) {
  if (wanted >= 0) {
    for (const Step& s : steps)
      if (s.n == wanted) return s;
    throw UsageError("trace '" + path + "' has no ProfilerStep#" + std::to_string(wanted) + " (" +
                     (steps.empty() ? "it has no ProfilerStep: leave out --trace-step"
                                    : "its steps: " + step_list(steps)) +
                     ")");
  }
  std::vector<Step> by_dur = steps;
  std::stable_sort(by_dur.begin(), by_dur.end(),
                   [](const Step& a, const Step& b) { return a.dur_us < b.dur_us; });
  return by_dur[(by_dur.size() - 1) / 2];
}

ShapedOp shaped_op(const json& e, const json& args) {
  ShapedOp op;
  op.name = e.value("name", "");
  op.start_us = e.value("ts", 0.0);
  op.end_us = op.start_us + e.value("dur", 0.0);
  op.tid = e.value("tid", std::int64_t{0});
  for (const json& d : args["Input Dims"]) {
    std::vector<std::int64_t> dims;
    if (d.is_array())
      for (const json& x : d)
        if (x.is_number_integer()) dims.push_back(x.get<std::int64_t>());
    op.dims.push_back(std::move(dims));
  }
  if (auto c = args.find("Concrete Inputs"); c != args.end() && c->is_array())
    for (const json& x : *c) op.concrete.push_back(x.is_string() ? x.get<std::string>() : "");
  return op;
}

struct Launched {
  GpuWork work;
  const json* args = nullptr;
  bool nccl = false;
};

}  // namespace

std::string kernel_label(const std::string& name) {
  std::string label = name.rfind("void ", 0) == 0 ? name.substr(5) : name;
  for (char stop : {'(', '<'}) {
    const std::size_t at = label.find(stop);
    if (at != std::string::npos && at > 0) label.resize(at);
  }
  if (label.size() > kLabelChars) label.resize(kLabelChars);
  return label;
}

namespace {

// distributedInfo (rank, world, process groups) and the GPU's name.
void read_header(const json& doc, const std::string& in_file, TraceEvents& out,
                 ProcessGroups& groups) {
  if (auto info = doc.find("distributedInfo"); info != doc.end() && info->is_object()) {
    out.rank = info->value("rank", 0);
    out.world = info->value("world_size", 1);
    for (const json& g : info->value("pg_config", json::array()))
      if (g.is_object() && g.contains("pg_name") && g.contains("ranks") && g["ranks"].is_array())
        groups[g["pg_name"].get<std::string>()] = g["ranks"].get<std::vector<int>>();
  }
  if (out.world < 1 || out.rank < 0 || out.rank >= out.world)
    throw UsageError(in_file + ": distributedInfo has rank " + std::to_string(out.rank) +
                     " of world " + std::to_string(out.world));
  if (auto dev = doc.find("deviceProperties"); dev != doc.end() && dev->is_array() && !dev->empty())
    out.device = (*dev)[0].value("name", "");
}

// The host time span read: ProfilerStep#`step` (the median one when step < 0), or everything.
struct Window {
  double from = -std::numeric_limits<double>::infinity();
  double to = std::numeric_limits<double>::infinity();
  bool stepped = false;
  bool inside(double ts) const { return ts >= from && ts <= to; }
};

Window step_window(const json& events, int step, const std::string& path, TraceEvents& out) {
  const std::vector<Step> steps = profiler_steps(events);
  for (const Step& s : steps) out.steps.push_back(s.n);
  Window w;
  w.stepped = !steps.empty();
  if (w.stepped || step >= 0) {
    const Step s = chosen_step(steps, step, path);
    out.step = s.n;
    w.from = s.start_us;
    w.to = s.start_us + s.dur_us;
  }
  return w;
}

// What the host events of the window hold for the GPU pass: launches by correlation, each
// thread's record_param_comms events, and the first host event's time.
struct HostPass {
  std::map<std::int64_t, const json*> launches;
  std::map<std::int64_t, std::vector<std::pair<double, const json*>>> comms;  // per thread
  double first_host_us = std::numeric_limits<double>::infinity();
};

// The launch calls that returned late: over the trace's own cut (launch_stall_cut_us).
void keep_stalls(const std::vector<HostSpan>& launch_calls, TraceEvents& out) {
  std::vector<double> durs;
  for (const HostSpan& s : launch_calls) durs.push_back(s.end_us - s.start_us);
  out.launch_stall_us = launch_stall_cut_us(durs);
  for (const HostSpan& s : launch_calls)
    if (s.end_us - s.start_us > out.launch_stall_us) out.launch_stalls.push_back(s);
}

HostPass read_host(const json& events, const Window& window, TraceEvents& out) {
  HostPass pass;
  std::vector<HostSpan> launch_calls;
  // A host call written twice (a trace trimmed before trim_trace.py kept each call once) is
  // one call: counted twice it would double a wait.
  std::set<std::tuple<std::string, std::string, double, double, std::int64_t>> seen;
  for (const json& e : events) {
    if (!e.is_object() || e.value("ph", "") != "X") continue;
    const std::string cat = e.value("cat", ""), name = e.value("name", "");
    const double ts = e.value("ts", 0.0), dur = e.value("dur", 0.0);
    if (!is_host(cat) || !window.inside(ts)) continue;
    pass.first_host_us = std::min(pass.first_host_us, ts);
    const json* args = e.contains("args") && e["args"].is_object() ? &e["args"] : nullptr;
    if (is_launcher(cat) && args && args->contains("correlation"))
      pass.launches[(*args)["correlation"].get<std::int64_t>()] = &e;
    if (is_launcher(cat) && !seen.emplace(cat, name, ts, dur, e.value("tid", std::int64_t{0})).second)
      continue;
    if (blocks_on_gpu(cat, name))
      out.host_waits.push_back({ts, ts + dur});
    else if (is_launch(cat, name))
      launch_calls.push_back({ts, ts + dur});
    if (cat == "user_annotation" && name.rfind("Optimizer.step", 0) == 0)
      out.optimizer.push_back({ts, ts + dur});
    if (cat != "cpu_op" || !args) continue;
    if (name == "record_param_comms" && args->contains("Collective name"))
      pass.comms[e.value("tid", std::int64_t{0})].emplace_back(ts, args);
    if (args->contains("Input Dims") && (*args)["Input Dims"].is_array()) {
      out.has_shapes = true;
      if (counts_flops(name)) out.shaped_ops.push_back(shaped_op(e, *args));
    }
  }
  keep_stalls(launch_calls, out);
  return pass;
}

// Every piece of GPU work launched in the window, with its launch, in launch order.
std::vector<Launched> read_gpu(const json& events, const HostPass& host, const Window& window,
                               const std::string& in_file) {
  std::vector<Launched> gpu;
  for (const json& e : events) {
    if (!e.is_object() || e.value("ph", "") != "X" || !is_gpu_work(e.value("cat", ""))) continue;
    const std::string name = e.value("name", "");
    Launched l;
    l.args = e.contains("args") && e["args"].is_object() ? &e["args"] : nullptr;
    const json args = l.args ? *l.args : json::object();
    GpuWork& w = l.work;
    w.label = kernel_label(name);
    w.start_us = e.value("ts", 0.0);
    w.dur_us = e.value("dur", 0.0);
    w.stream = args.value("stream", e.value("tid", std::int64_t{0}));
    w.correlation = args.value("correlation", std::int64_t{-1});
    auto launch = host.launches.find(w.correlation);
    if (launch == host.launches.end()) {
      // Launched in another profiler step, or before the profiler started (still running when
      // it did, ahead of every host event).
      if (window.stepped || (std::isfinite(host.first_host_us) && w.start_us < host.first_host_us))
        continue;
      throw UsageError(in_file + ": GPU kernel '" + w.label + "'" + at_ts(w.start_us) +
                       " has no launch (no cuda_runtime event with correlation " +
                       std::to_string(w.correlation) + ")");
    }
    w.launch_us = launch->second->value("ts", 0.0);
    w.launch_end_us = w.launch_us + launch->second->value("dur", 0.0);
    w.launch_tid = launch->second->value("tid", std::int64_t{0});
    l.nccl = args.contains("Collective name") || name.find("nccl") != std::string::npos;
    gpu.push_back(std::move(l));
  }
  std::sort(gpu.begin(), gpu.end(), [](const Launched& a, const Launched& b) {
    return a.work.launch_us != b.work.launch_us ? a.work.launch_us < b.work.launch_us
                                                : a.work.correlation < b.work.correlation;
  });
  return gpu;
}

// Each NCCL launch takes the record_param_comms events its thread recorded since the previous.
void attach_collectives(std::vector<Launched>& gpu, HostPass& host, const ProcessGroups& groups,
                        double from, const std::string& in_file, int world) {
  std::map<std::int64_t, double> last_nccl_us;
  for (Launched& l : gpu) {
    if (!l.nccl) continue;
    GpuWork& w = l.work;
    const std::string where = in_file + ": collective kernel '" + w.label + "'" + at_ts(w.start_us);
    const auto since = last_nccl_us.find(w.launch_tid);
    const double after = since == last_nccl_us.end() ? from : since->second;
    last_nccl_us[w.launch_tid] = w.launch_us;
    std::vector<TraceCollective> calls;
    for (const auto& [ts, args] : host.comms[w.launch_tid])
      if (ts > after && ts <= w.launch_us &&
          !launches_nothing(args->value("Collective name", ""))) {
        TraceCollective c =
            comm_fields(*args, where + " (record_param_comms" + at_ts(ts) + ")", groups, world);
        if (!is_coalesced_name(c.name)) calls.push_back(std::move(c));
      }
    if (l.args && l.args->contains("Collective name")) {
      w.collective = comm_fields(*l.args, where, groups, world);
      // torch 2.11 writes "Rank" (a broadcast's root, a p2p peer) on the host event only.
      for (const TraceCollective& c : calls)
        if (c.name == w.collective->name) {
          if (w.collective->rank_field < 0) w.collective->rank_field = c.rank_field;
          if (w.collective->peer < 0) w.collective->peer = c.peer;
        }
    } else if (!calls.empty())
      w.collective = calls.back();  // the fields only on the host events
    else
      w.collective = comm_fields(json::object(), where, groups, world);
    const bool all_p2p = std::all_of(calls.begin(), calls.end(),
                                     [](const TraceCollective& c) { return is_p2p(c.name); });
    const std::string& name = w.collective->name;
    if (calls.size() >= 2 && (is_coalesced_name(name) || (all_p2p && is_p2p(name))))
      w.parts = std::move(calls);
  }
}

}  // namespace

double launch_stall_cut_us(std::vector<double> launch_durs_us) {
  if (launch_durs_us.empty()) return 0;
  const auto mid = launch_durs_us.begin() + static_cast<std::ptrdiff_t>(launch_durs_us.size() / 2);
  std::nth_element(launch_durs_us.begin(), mid, launch_durs_us.end());
  return kLaunchStallMedians * *mid;
}

// A field of an unexpected JSON type (nlohmann throws) is bad input like any other.
TraceEvents parse_trace(const std::string& text, const std::string& path, int step) try {
  const std::string in_file = "trace '" + path + "'";
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded())
    throw UsageError(in_file + ": not JSON (a torch.profiler export_chrome_trace file?)");
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    throw UsageError(in_file + ": no traceEvents list");
  const json& events = doc["traceEvents"];
  TraceEvents out;
  out.path = path;
  ProcessGroups groups;
  read_header(doc, in_file, out, groups);
  const Window window = step_window(events, step, path, out);
  HostPass host = read_host(events, window, out);
  out.step_start_us = window.stepped ? window.from : host.first_host_us;
  std::vector<Launched> gpu = read_gpu(events, host, window, in_file);
  if (gpu.empty())
    throw UsageError(in_file + ": no GPU kernels" +
                     (window.stepped ? " in ProfilerStep#" + std::to_string(out.step) : "") +
                     " (profile with ProfilerActivity.CUDA)");
  attach_collectives(gpu, host, groups, window.from, in_file, out.world);
  out.gpu.reserve(gpu.size());
  for (Launched& l : gpu) out.gpu.push_back(std::move(l.work));
  return out;
} catch (const nlohmann::json::exception& e) {
  throw UsageError("trace '" + path + "': an event of an unexpected shape (" + e.what() + ")");
} catch (const std::logic_error& e) {  // a number out of range
  throw UsageError("trace '" + path + "': a field out of range (" + e.what() + ")");
}

int median_step(const std::string& text, const std::string& path) {
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("traceEvents") ||
      !doc["traceEvents"].is_array())
    throw UsageError("trace '" + path + "': not a torch.profiler trace (no traceEvents list)");
  const std::vector<Step> steps = profiler_steps(doc["traceEvents"]);
  return steps.empty() ? -1 : chosen_step(steps, -1, path).n;
}

TraceEvents read_trace(const std::string& path, int step) {
  return parse_trace(read_trace_text(path), path, step);
}

}  // namespace collreplay::trace
