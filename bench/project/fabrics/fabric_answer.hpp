// "Do I need InfiniBand?" computed: at each node count, every layout that applies (layouts.hpp) is
// projected on each fabric, each fabric's best layout that fits is taken, and the later fabrics'
// tokens/s are divided by the first's (records/fabric_answer.hpp defines the answer, its record
// and its words). `project --fabric a,b` and `advise --fabric a,b` both answer through here, so the
// same workload on the same fabrics gives the same ratio in each.
#pragma once
#include <string>
#include <vector>

#include "bench/project/interval/scaling_interval.hpp"
#include "bench/project/layouts/ranked_layouts.hpp"
#include "bench/project/projection.hpp"
#include "records/fabric_answer.hpp"

namespace collreplay::project {

// "ib-ndr-8x400,eth-100g" -> its names; UsageError on an empty name or a repeated one.
std::vector<std::string> split_fabrics(const std::string& text);

struct LabelledFabric {
  std::string label;        // the profile's name, or the fitted fabric's
  ProjectionInputs inputs;  // its tiers and band; compute, terms and memory limit (required)
  // Where its comm-time band comes from ("profile": the intra fit's alone; "fit:DIR"): fabrics
  // of one source err together.
  std::string band_source;
  int measured_max_nodes = 0;  // a fitted fabric's largest measured node count (0: a profile)
};

// The FSDP implementation the answer's FSDP layouts use: the request's plan when it is one
// (fsdp1 | fsdp2), else fsdp1, the builder's default.
std::string answer_fsdp(const WorkloadRequest& request);

// One answer per later fabric against the first, at `nodes`, from each fabric's ranking of the
// same layouts (rank_layouts over `fabrics`, in order). The ratio's interval: each side's
// comm-time band (fabrics of one band source at the same end of it), widened by each side's
// scaling error from one node (interval/scaling_interval.hpp: the calibration's points per
// sqrt(doubling) over the doublings from one node to `nodes`, and beyond a fitted fabric's
// measured node counts), taken relative to each side's throughput.
std::vector<records::FabricAnswer> answers_from_rankings(
    const std::vector<LabelledFabric>& fabrics,
    const std::vector<std::vector<RankedLayout>>& rankings, const std::string& model, int nodes,
    const records::AnswerAssumptions& assumptions, const IntervalCalibration& scaling);

// For every node count: the layouts of `base` (model, batch shape, FSDP implementation) ranked on
// each fabric, then answers_from_rankings. Indexed [later fabric][node count].
std::vector<std::vector<records::FabricAnswer>> answer_fabrics(
    const WorkloadRequest& base, const std::vector<LabelledFabric>& fabrics,
    const std::vector<int>& node_counts, const records::AnswerAssumptions& assumptions,
    const IntervalCalibration& scaling);

}  // namespace collreplay::project
