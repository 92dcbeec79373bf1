#include "bench/advise/advice_report.hpp"

#include <ostream>

#include "bench/project/project_report.hpp"

namespace collreplay::advise {
namespace {

using project::format_value;

double gib(std::uint64_t bytes) { return static_cast<double>(bytes) / (1ULL << 30); }

std::string recompute_word(const Advice& a) {
  return !a.recompute ? "-" : *a.recompute ? "yes" : "no";
}

// Why a layout does not fit or apply; for one that fits, whether its communication still shows:
// a layout ranked high may be one whose layers cannot hide their collectives.
std::string note(const Advice& a) {
  if (!a.reason.empty() || !a.projection) return a.reason;
  const project::ProjectionRow& p = *a.projection;
  const std::string tight =
      p.memory_tight ? "memory tight: fits at the allocator's low-end slack" : "";
  if (p.median_layer >= 0 && p.headroom_ms < 0)
    return "headroom < 0: the median layer's communication outlasts its compute (" +
           format_value("%.1f", p.exposed_comm_ms) + " ms exposed a step)" +
           (tight.empty() ? "" : "; " + tight);
  return tight;
}

}  // namespace

void print_advice(const std::vector<Advice>& advice, const AdviceLabels& l, std::ostream& out) {
  out << "# advise: " << l.model << ", micro-batch " << l.micro_batch << " x seq " << l.seq << ", "
      << l.nodes << " node(s) x " << l.gpus_per_node << " GPUs, fabric " << l.fabric << ", compute "
      << l.compute << "\n";
  out << "# memory per GPU: " << l.memory << "\n";
  out << "# " << l.interval << "\n";
  out << "# ranked by projected tokens/s among the layouts that fit; headroom = the median "
         "layer's compute - its comm\n";
  char line[256];
  std::snprintf(line, sizeof line, "%4s  %-12s %9s %10s %10s %12s %21s %11s %12s  %s\n", "rank",
                "layout", "recompute", "mem_GiB", "step_ms", "tokens/s", "[lo, hi]", "exposed_ms",
                "headroom_ms", "note");
  out << line;
  for (const Advice& a : advice) {
    const std::string rank = a.rank ? std::to_string(*a.rank) : "-";
    const std::string mem = a.memory ? format_value("%.1f", gib(a.memory->total_bytes())) : "-";
    // A layout that does not fit was not run: its memory and the reason are what it has.
    const auto& p = a.fits ? a.projection : std::optional<project::ProjectionRow>();
    const std::string band =
        p ? "[" + format_value("%.0f", p->tokens_per_s * (1 - l.scaling_halfwidth)) + ", " +
                format_value("%.0f", p->tokens_per_s * (1 + l.scaling_halfwidth)) + "]"
          : "-";
    std::snprintf(line, sizeof line, "%4s  %-12s %9s %10s %10s %12s %21s %11s %12s  ",
                  rank.c_str(), a.layout.name.c_str(), recompute_word(a).c_str(), mem.c_str(),
                  p ? format_value("%.1f", p->step_ms).c_str() : "-",
                  p ? format_value("%.0f", p->tokens_per_s).c_str() : "-", band.c_str(),
                  p ? format_value("%.1f", p->exposed_comm_ms).c_str() : "-",
                  p ? format_value("%.2f", p->headroom_ms).c_str() : "-");
    out << line << note(a) << "\n";
  }
}

nlohmann::json advice_json(const Advice& a, const AdviceLabels& l) {
  const auto& p = a.fits ? a.projection : std::optional<project::ProjectionRow>();
  nlohmann::json j{
      {"record", "advice"},
      {"layout", a.layout.name},
      {"rank", a.rank ? nlohmann::json(*a.rank) : nlohmann::json()},
      {"fits", a.fits},
      {"memory_tight", a.projection && a.projection->memory_tight},
      {"recompute", a.recompute ? nlohmann::json(*a.recompute) : nlohmann::json()},
      {"memory_per_gpu_bytes",
       a.memory ? nlohmann::json(a.memory->total_bytes()) : nlohmann::json()},
      {"step_ms", p ? nlohmann::json(p->step_ms) : nlohmann::json()},
      {"tokens_per_s", p ? nlohmann::json(p->tokens_per_s) : nlohmann::json()},
      {"tokens_per_s_lo",
       p ? nlohmann::json(p->tokens_per_s * (1 - l.scaling_halfwidth)) : nlohmann::json()},
      {"tokens_per_s_hi",
       p ? nlohmann::json(p->tokens_per_s * (1 + l.scaling_halfwidth)) : nlohmann::json()},
      {"exposed_comm_ms", p ? nlohmann::json(p->exposed_comm_ms) : nlohmann::json()},
      {"headroom_ms", p ? nlohmann::json(p->headroom_ms) : nlohmann::json()},
      {"reason", a.reason},
      {"note", note(a)},
      {"model", l.model},
      {"fabric", l.fabric},
      {"compute", l.compute},
      {"nodes", l.nodes},
      {"gpus_per_node", l.gpus_per_node},
      {"micro_batch", l.micro_batch},
      {"seq", l.seq},
      {"gpu_memory_bytes", l.gpu_memory_bytes},
      {"optimizer_states", l.optimizer_states},
      {"tp", a.layout.request.tp},
      {"ep", a.layout.request.ep},
      {"plan", a.layout.request.plan},
      {"sharding", a.layout.request.sharding},
  };
  if (a.memory)
    j["memory"] = {{"params_bytes", a.memory->params_bytes},
                   {"grads_bytes", a.memory->grads_bytes},
                   {"optimizer_bytes", a.memory->optimizer_bytes},
                   {"gathered_bytes", a.memory->gathered_bytes},
                   {"activations_bytes", a.memory->activations_bytes}};
  if (p && p->mfu) j["mfu"] = *p->mfu;
  return j;
}

}  // namespace collreplay::advise
