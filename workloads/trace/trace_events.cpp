#include "workloads/trace/trace_events.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "common/read_file.hpp"

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
bool blocks_on_gpu(const std::string& cat, const std::string& name) {
  return cat == "cuda_runtime" &&
         (name.find("Synchronize") != std::string::npos || name == "cudaMemcpy");
}

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError("trace '" + path_ + "': " + what);
  }

  // A number that torch writes as a JSON number or, in some versions, as a string.
  std::int64_t integer(const json& args, const char* key, const std::string& kernel) const {
    auto it = args.find(key);
    if (it == args.end())
      fail("collective kernel '" + kernel + "' has no '" + key + "' (profile with record_shapes)");
    if (it->is_number_integer()) return it->get<std::int64_t>();
    if (it->is_string()) {
      try {
        std::size_t used = 0;
        const std::int64_t v = std::stoll(it->get<std::string>(), &used);
        if (used == it->get<std::string>().size()) return v;
      } catch (const std::exception&) {
      }
    }
    fail("collective kernel '" + kernel + "': '" + key + "' is not an integer");
  }

  std::vector<int> rank_list(const std::string& text, const std::string& kernel) const {
    std::vector<int> ranks;
    std::string digits;
    for (char c : text + ",") {
      if (c >= '0' && c <= '9') {
        digits += c;
      } else if (c == ',' || c == ']') {
        if (!digits.empty()) ranks.push_back(std::stoi(digits));
        digits.clear();
      } else if (c != '[' && c != ' ') {
        fail("collective kernel '" + kernel + "': 'Process Group Ranks' '" + text +
             "' is not a list of ranks");
      }
    }
    return ranks;
  }

  std::vector<int> group_ranks(const json& args, const std::string& kernel,
                               const std::map<std::string, std::vector<int>>& groups,
                               int world) const {
    if (auto it = args.find("Process Group Ranks"); it != args.end() && it->is_string())
      return rank_list(it->get<std::string>(), kernel);
    if (auto it = args.find("Process Group Name"); it != args.end() && it->is_string())
      if (auto g = groups.find(it->get<std::string>()); g != groups.end()) return g->second;
    if (args.contains("Group size") && integer(args, "Group size", kernel) == world) {
      std::vector<int> all(static_cast<std::size_t>(world));
      for (int r = 0; r < world; ++r) all[static_cast<std::size_t>(r)] = r;
      return all;
    }
    fail("collective kernel '" + kernel +
         "' has no 'Process Group Ranks' (nor a process group of distributedInfo)");
  }

  TraceCollective collective(const json& args, const std::string& kernel,
                             const std::map<std::string, std::vector<int>>& groups,
                             int world) const {
    TraceCollective c;
    auto name = args.find("Collective name");
    if (name == args.end() || !name->is_string())
      fail("NCCL kernel '" + kernel + "' has no 'Collective name' (profile with record_shapes)");
    c.name = name->get<std::string>();
    c.in_nelems = integer(args, "In msg nelems", kernel);
    c.out_nelems = integer(args, "Out msg nelems", kernel);
    auto dtype = args.find("dtype");
    if (dtype == args.end() || !dtype->is_string())
      fail("collective kernel '" + kernel + "' has no 'dtype'");
    c.dtype = dtype->get<std::string>();
    c.ranks = group_ranks(args, kernel, groups, world);
    return c;
  }

 private:
  std::string path_;
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

TraceEvents parse_trace(const std::string& text, const std::string& path) {
  const Reader reader(path);
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) reader.fail("not JSON (a torch.profiler export_chrome_trace file?)");
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    reader.fail("no traceEvents list");
  TraceEvents out;
  out.path = path;
  std::map<std::string, std::vector<int>> groups;
  if (auto info = doc.find("distributedInfo"); info != doc.end() && info->is_object()) {
    out.rank = info->value("rank", 0);
    out.world = info->value("world_size", 1);
    for (const json& g : info->value("pg_config", json::array()))
      if (g.is_object() && g.contains("pg_name") && g.contains("ranks"))
        groups[g["pg_name"].get<std::string>()] = g["ranks"].get<std::vector<int>>();
  }
  if (out.world < 1 || out.rank < 0 || out.rank >= out.world)
    reader.fail("distributedInfo has rank " + std::to_string(out.rank) + " of world " +
                std::to_string(out.world));
  if (auto dev = doc.find("deviceProperties"); dev != doc.end() && dev->is_array() && !dev->empty())
    out.device = (*dev)[0].value("name", "");

  // The first profiler step, when the profiler ran a schedule of several.
  double from = -std::numeric_limits<double>::infinity(), to = -from;
  bool stepped = false;
  for (const json& e : doc["traceEvents"]) {
    const std::string name = e.value("name", "");
    if (e.value("ph", "") == "X" && name.rfind("ProfilerStep#", 0) == 0 &&
        (!stepped || e.value("ts", 0.0) < from)) {
      from = e.value("ts", 0.0);
      to = from + e.value("dur", 0.0);
      stepped = true;
    }
  }
  auto inside = [&](double ts) { return ts >= from && ts <= to; };

  std::map<std::int64_t, const json*> launches;
  double first_host = std::numeric_limits<double>::infinity();
  for (const json& e : doc["traceEvents"]) {
    if (!e.is_object() || e.value("ph", "") != "X") continue;
    const std::string cat = e.value("cat", ""), name = e.value("name", "");
    const double ts = e.value("ts", 0.0), dur = e.value("dur", 0.0);
    if (!is_host(cat) || !inside(ts)) continue;
    first_host = std::min(first_host, ts);
    if (is_launcher(cat) && e.contains("args") && e["args"].contains("correlation"))
      launches[e["args"]["correlation"].get<std::int64_t>()] = &e;
    if (blocks_on_gpu(cat, name)) out.host_waits.push_back({ts, ts + dur});
    if (cat == "user_annotation" && name.rfind("Optimizer.step", 0) == 0)
      out.optimizer.push_back({ts, ts + dur});
  }
  out.step_start_us = stepped ? from : first_host;

  for (const json& e : doc["traceEvents"]) {
    if (!e.is_object() || e.value("ph", "") != "X" || !is_gpu_work(e.value("cat", ""))) continue;
    const std::string name = e.value("name", "");
    const json args = e.value("args", json::object());
    GpuWork w;
    w.label = kernel_label(name);
    w.start_us = e.value("ts", 0.0);
    w.dur_us = e.value("dur", 0.0);
    w.stream = args.value("stream", e.value("tid", std::int64_t{0}));
    w.correlation = args.value("correlation", std::int64_t{-1});
    auto launch = launches.find(w.correlation);
    if (launch == launches.end()) {
      if (stepped) continue;  // launched in another profiler step
      reader.fail("GPU kernel '" + w.label + "' has no launch (no cuda_runtime event with " +
                  "correlation " + std::to_string(w.correlation) + ")");
    }
    w.launch_us = launch->second->value("ts", 0.0);
    w.launch_end_us = w.launch_us + launch->second->value("dur", 0.0);
    w.launch_tid = launch->second->value("tid", std::int64_t{0});
    if (args.contains("Collective name") || name.find("nccl") != std::string::npos)
      w.collective = reader.collective(args, w.label, groups, out.world);
    out.gpu.push_back(std::move(w));
  }
  if (out.gpu.empty())
    reader.fail("no GPU kernels (profile with ProfilerActivity.CUDA)");
  std::sort(out.gpu.begin(), out.gpu.end(), [](const GpuWork& a, const GpuWork& b) {
    return a.launch_us != b.launch_us ? a.launch_us < b.launch_us : a.correlation < b.correlation;
  });
  return out;
}

TraceEvents read_trace(const std::string& path) {
  return parse_trace(read_whole_file(path, "trace file"), path);
}

}  // namespace collreplay::trace
