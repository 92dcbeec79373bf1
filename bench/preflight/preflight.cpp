#include "bench/preflight/preflight.hpp"

#include <cstdio>

#include "bench/app/stats.hpp"
#include "bench/compute/gemm/gemm_probe.hpp"
#include "bench/preflight/gpu_health.hpp"
#include "bench/preflight/topology.hpp"
#include "collectives/mpi/mpi_watched.hpp"
#include "common/errors.hpp"
#include "common/host_identity.hpp"

namespace collreplay {
namespace {

nlohmann::json health_json(const GpuHealthReport& report) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpuHealth& g : report.gpus)
    gpus.push_back({{"index", g.index},
                    {"name", g.name},
                    {"bus_id", g.bus_id},
                    {"sm_clock_mhz", g.sm_clock_mhz},
                    {"max_sm_clock_mhz", g.max_sm_clock_mhz},
                    {"mem_clock_mhz", g.mem_clock_mhz},
                    {"temperature_c", g.temperature_c},
                    {"power_w", g.power_w},
                    {"power_limit_w", g.power_limit_w},
                    {"throttle_reasons", g.throttle_reasons}});
  return {{"gpus", gpus}, {"unavailable_reason", report.unavailable_reason}};
}

nlohmann::json topology_json(const Topology& t) {
  nlohmann::json ib = nlohmann::json::array(), nics = nlohmann::json::array();
  for (const IbPort& p : t.ib_ports)
    ib.push_back({{"device", p.device},
                  {"port", p.port},
                  {"state", p.state},
                  {"rate_gbps", p.rate_gbps},
                  {"link_layer", p.link_layer}});
  for (const Nic& n : t.nics)
    nics.push_back({{"name", n.name}, {"speed_mbps", n.speed_mbps}, {"operstate", n.operstate}});
  return {{"gpu_links", t.gpu_links}, {"ib_ports", ib}, {"nics", nics}};
}

// Throttling that means the GPU is not at full speed for a bad reason (idle is benign).
std::vector<std::string> health_problems(const std::string& host, const GpuHealthReport& report) {
  std::vector<std::string> problems;
  for (const GpuHealth& g : report.gpus)
    for (const std::string& reason : g.throttle_reasons)
      if (reason.find("idle") == std::string::npos)
        problems.push_back("host " + host + " GPU " + std::to_string(g.index) + " (" + g.bus_id +
                           ") is throttled: " + reason + " at " + std::to_string(g.temperature_c) +
                           " C, " + std::to_string(g.sm_clock_mhz) + "/" +
                           std::to_string(g.max_sm_clock_mhz) + " MHz");
  return problems;
}

void print_report(const nlohmann::json& json, const std::vector<std::string>& problems) {
  std::printf("# preflight: GEMM %d^3 per rank\n", json["gemm_n"].get<int>());
  std::printf(
      "#  rank  host                  device                                    ms   TFLOP/s\n");
  const auto& ranks = json["ranks"];
  for (std::size_t r = 0; r < ranks.size(); ++r)
    std::printf("#  %4zu  %-20s  %-36s  %8.3f  %8.2f\n", r,
                ranks[r]["host"].get<std::string>().c_str(),
                ranks[r]["device"].get<std::string>().substr(0, 36).c_str(),
                ranks[r]["gemm_ms"].get<double>(), ranks[r]["gemm_tflops"].get<double>());
  const auto& topology = json["topology"];
  std::printf("# topology (rank 0's host): %zu GPU link rows, %zu IB ports, %zu NICs\n",
              topology["gpu_links"].size(), topology["ib_ports"].size(), topology["nics"].size());
  for (const auto& port : topology["ib_ports"])
    std::printf("#   IB %s port %d %s %.0f Gb/s %s\n", port["device"].get<std::string>().c_str(),
                port["port"].get<int>(), port["state"].get<std::string>().c_str(),
                port["rate_gbps"].get<double>(), port["link_layer"].get<std::string>().c_str());
  for (const std::string& p : problems) std::printf("# preflight warning: %s\n", p.c_str());
  if (problems.empty()) std::printf("# preflight: every rank looks healthy\n");
  std::fflush(stdout);
}

}  // namespace

std::vector<std::string> slow_rank_problems(const std::vector<double>& gemm_ms,
                                            const std::vector<std::string>& hosts,
                                            const std::vector<std::string>& devices,
                                            double threshold) {
  std::vector<std::string> problems;
  const double mid = median(gemm_ms);
  for (std::size_t r = 0; r < gemm_ms.size(); ++r) {
    if (!(gemm_ms[r] > mid * (1 + threshold))) continue;
    char text[512];
    std::snprintf(text, sizeof text,
                  "rank %zu on %s (%s) is slow: GEMM %.3f ms, %.0f%% above the median %.3f ms", r,
                  hosts.at(r).c_str(), devices.at(r).c_str(), gemm_ms[r],
                  (gemm_ms[r] / mid - 1) * 100, mid);
    problems.push_back(text);
  }
  return problems;
}

PreflightReport run_preflight(MPI_Comm world, ComputeEngine& engine, const std::string& device,
                              const PreflightOptions& options) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  const std::string host = host_name();
  const GpuHealthReport health = read_gpu_health();
  const GemmProbe probe = probe_gemm(engine);

  const std::vector<std::string> hosts = gather_strings_to_root(world, host);
  const std::vector<std::string> devices = gather_strings_to_root(world, device);
  const std::vector<std::string> healths =
      gather_strings_to_root(world, health_json(health).dump());
  const std::vector<std::string> gemm_ms_text =
      gather_strings_to_root(world, std::to_string(probe.median_ms));

  PreflightReport report;
  int problem_count = 0;
  if (rank == 0) {
    std::vector<double> gemm_ms;
    for (const std::string& text : gemm_ms_text) gemm_ms.push_back(std::stod(text));
    report.json["gemm_n"] = probe.n;
    report.json["ranks"] = nlohmann::json::array();
    for (std::size_t r = 0; r < hosts.size(); ++r) {
      const nlohmann::json rank_health = nlohmann::json::parse(healths[r]);
      report.json["ranks"].push_back({{"rank", r},
                                      {"host", hosts[r]},
                                      {"device", devices[r]},
                                      {"gemm_ms", gemm_ms[r]},
                                      {"gemm_tflops", probe.flops / (gemm_ms[r] * 1e9)},
                                      {"health", rank_health}});
      // One host's GPUs are reported by each of its ranks: name each host's problems once.
      if (r == 0 || hosts[r] != hosts[r - 1]) {
        GpuHealthReport parsed;
        for (const auto& g : rank_health["gpus"]) {
          GpuHealth h;
          h.index = g["index"];
          h.bus_id = g["bus_id"];
          h.sm_clock_mhz = g["sm_clock_mhz"];
          h.max_sm_clock_mhz = g["max_sm_clock_mhz"];
          h.temperature_c = g["temperature_c"];
          h.throttle_reasons = g["throttle_reasons"].get<std::vector<std::string>>();
          parsed.gpus.push_back(h);
        }
        for (std::string& p : health_problems(hosts[r], parsed)) report.problems.push_back(p);
      }
    }
    for (std::string& p : slow_rank_problems(gemm_ms, hosts, devices, options.slow_threshold))
      report.problems.push_back(p);
    report.json["topology"] = topology_json(read_topology());
    report.json["problems"] = report.problems;
    report.json["slow_threshold"] = options.slow_threshold;
    print_report(report.json, report.problems);
    problem_count = static_cast<int>(report.problems.size());
  }
  MPI_Bcast(&problem_count, 1, MPI_INT, 0, world);
  if (options.strict && problem_count > 0)
    throw PreflightError("preflight found " + std::to_string(problem_count) +
                         " problem(s) (see the warnings above); rerun without --strict to "
                         "measure anyway");
  return report;
}

}  // namespace collreplay
