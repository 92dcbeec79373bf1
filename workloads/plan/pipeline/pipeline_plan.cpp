#include "workloads/plan/pipeline/pipeline_plan.hpp"

#include <numeric>

#include "common/errors.hpp"
#include "workloads/plan/parallel/mesh.hpp"

namespace collreplay {
namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw UsageError(message);
}

std::string str(long long v) { return std::to_string(v); }

// A whole number of at most 6 digits, or -1.
int small_number(const std::string& text) {
  if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoi(text);
}

struct ScheduleChoice {
  PipeScheduleKind kind = PipeScheduleKind::one_f_one_b;
  int virtual_stages = 1;
};

ScheduleChoice parse_schedule(const std::string& text) {
  if (text.empty() || text == "1f1b") return {};
  if (text == "gpipe") return {PipeScheduleKind::gpipe, 1};
  const std::string prefix = "interleaved:";
  if (text.rfind(prefix, 0) == 0) {
    const int v = small_number(text.substr(prefix.size()));
    require(v >= 2, "bad --pp-schedule '" + text +
                        "': interleaved:V needs V >= 2 virtual stages per rank");
    return {PipeScheduleKind::interleaved, v};
  }
  throw UsageError("unknown --pp-schedule '" + text +
                   "' (expected gpipe, 1f1b or interleaved:V)");
}

std::vector<int> parse_layer_list(const std::string& text, int stages) {
  std::vector<int> counts;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    const int n = small_number(text.substr(from, comma - from));
    require(n >= 1, "bad --pp-layers '" + text +
                        "': expected a comma-separated list of decoder layers per stage, each "
                        "at least 1");
    counts.push_back(n);
    from = comma + 1;
  }
  require(static_cast<int>(counts.size()) == stages,
          "--pp-layers '" + text + "' lists " + str(static_cast<long long>(counts.size())) +
              " stages; the pipeline has " + str(stages));
  return counts;
}

}  // namespace

std::string pipe_schedule_name(const PipelinePlan& plan) {
  switch (plan.kind) {
    case PipeScheduleKind::gpipe: return "gpipe";
    case PipeScheduleKind::one_f_one_b: return "1f1b";
    case PipeScheduleKind::interleaved: return "interleaved:" + str(plan.virtual_stages);
  }
  return "?";
}

void check_pipeline_flags(const WorkloadRequest& q) {
  const PipelineRequest& p = q.pipeline;
  require(p.pp >= 1, "--pp must be at least 1 (got " + str(p.pp) + ")");
  if (p.pp == 1) {
    require(p.schedule.empty(), "--pp-schedule needs --pp above 1");
    require(p.layers.empty(), "--pp-layers needs --pp above 1");
    return;
  }
  parse_schedule(p.schedule);
  require(q.world % p.pp == 0, "--pp " + str(p.pp) + " does not divide world " + str(q.world));
  const int stage_world = q.world / p.pp;
  require(q.trace.empty(), "--pp builds a pipeline from the catalog; a --trace carries its own");
  require(q.a2a != "hierarchical", "--a2a hierarchical with --pp is not modelled");
  if (!q.mesh.empty()) {
    const MeshDims d = parse_mesh(q.mesh);
    require(static_cast<long long>(d.dp) * d.ep * d.tp == stage_world,
            "--mesh " + q.mesh + " lays out one pipeline stage: its product must be world / pp = " +
                str(stage_world));
  } else {
    require(q.tp >= 1 && stage_world % q.tp == 0,
            "--pp " + str(p.pp) + " x --tp " + str(q.tp) + " does not divide world " +
                str(q.world));
  }
}

PipelinePlan plan_pipeline(const WorkloadRequest& q, int model_layers) {
  check_pipeline_flags(q);
  const PipelineRequest& p = q.pipeline;
  PipelinePlan plan;
  plan.pp = p.pp;
  const ScheduleChoice choice = parse_schedule(p.schedule);
  plan.kind = choice.kind;
  plan.virtual_stages = choice.virtual_stages;
  plan.micro_batches = q.micro_batches;
  plan.stage_world = q.world / p.pp;
  const int stages = plan.stage_count(), m = q.micro_batches;
  // torch.distributed.pipelining's own refusals (schedules.py).
  require(plan.kind != PipeScheduleKind::one_f_one_b || m >= p.pp,
          "--pp-schedule 1f1b needs at least as many micro-batches as stages (torch's "
          "Schedule1F1B refuses --micro-batches " + str(m) + " for --pp " + str(p.pp) + ")");
  require(plan.kind != PipeScheduleKind::interleaved || m % p.pp == 0,
          "--pp-schedule " + p.schedule + " needs the micro-batches to be a multiple of --pp " +
              str(p.pp) + " (Megatron-LM's interleaved schedule); --micro-batches " + str(m) +
              " is not");
  require(model_layers >= stages,
          "--pp " + str(p.pp) + (plan.virtual_stages > 1
                                     ? " x " + str(plan.virtual_stages) + " virtual stages"
                                     : std::string()) +
              " = " + str(stages) + " stages for " + str(model_layers) +
              " decoder layers: more stages than layers");
  std::vector<int> counts;
  if (p.layers.empty()) {
    require(model_layers % stages == 0,
            "--pp " + str(p.pp) + " splits " + str(model_layers) + " decoder layers into " +
                str(stages) + " stages, which does not divide them evenly; give --pp-layers");
    counts.assign(static_cast<std::size_t>(stages), model_layers / stages);
  } else {
    counts = parse_layer_list(p.layers, stages);
    const int sum = std::accumulate(counts.begin(), counts.end(), 0);
    require(sum == model_layers, "--pp-layers '" + p.layers + "' adds up to " + str(sum) +
                                     " decoder layers; the model has " + str(model_layers));
  }
  int first = 0;
  for (int k = 0; k < stages; ++k) {
    StageSpan span;
    span.first_layer = first;
    span.layers = counts[static_cast<std::size_t>(k)];
    span.embedding = k == 0;
    span.head = k == stages - 1;
    plan.stages.push_back(span);
    first += span.layers;
  }
  return plan;
}

}  // namespace collreplay
