// The `project` command line: replay's workload flags plus the fabric, compute and node counts
// to project, or --validate RESULTS_DIR.
#pragma once
#include <string>
#include <vector>

#include "bench/app/run/cli_names.hpp"
#include "bench/project/memory/memory_limit.hpp"
#include "records/fabric_answer.hpp"
#include "workloads/plan/request.hpp"

namespace collreplay::project {

struct ProjectOptions {
  WorkloadRequest request;
  std::string fabric;   // profile name or a results folder to fit; several, comma-separated
  std::string compute;  // model:GPU@MFU, or a results folder with a compute-only replay
  std::string nodes = "1,2,4,8,16,32,64,128,256,512,1024";
  // With two fabrics or more: the node counts the answer weighs every layout at (empty: --nodes),
  // each a ranking of every candidate layout, where a projection row is one.
  std::string answer_nodes;
  std::string out;           // JSON Lines file
  std::string fabrics_file;  // default: sweeps/fabrics.tsv beside the executable's checkout
  std::string intra;  // results for the intra-node tier; default: the measured 2x H200 NVLink sweep
  std::string intra_transport = "nvlink";
  std::string transport;       // keep only results with this verified transport
  std::string results_fabric;  // keep only results whose run.fabric is this (a sweep over several)
  std::string validate;        // results folder: fit all node counts but the largest, predict it
  std::string observed;  // CSV of real tokens/s per GPU: fit the --fabric label's rows
  std::string held_out;  // CSV of rows kept out of the --observed fit: predicted and compared
  MemoryFlags memory;              // what the step must fit in
  std::vector<std::string> check;  // published-throughput fixtures: predict every row (check/)
  std::vector<std::string> command_line;
};

void add_project_options(CLI::App& app, ProjectOptions& options);
// Where the fabric and the compute come from (--fabric, --compute, --observed and the flags that
// qualify them): shared with `advise`, which projects over the same fabrics.
void add_fabric_options(CLI::App& app, ProjectOptions& options);
// --gpu-memory-gib and --optimizer-states: shared with `advise`.
void add_memory_options(CLI::App& app, MemoryFlags& flags);

// The compute `project` and `advise` time GEMMs at when --compute is not given (a GPU's bf16 peak at
// the default MFU), and what --compute says in words for the answer ("model:h100 (default)").
inline constexpr const char* kDefaultCompute = "model:h100";
std::string compute_spec(const ProjectOptions& options);
std::string compute_words(const ProjectOptions& options);
// What the fabric answer assumed (records/fabric_answer.hpp), in the options' terms.
records::AnswerAssumptions answer_assumptions(const ProjectOptions& options);

// "1,2,4" -> {1, 2, 4}; UsageError naming `flag` on anything but positive integers.
std::vector<int> parse_node_counts(const std::string& text, const std::string& flag = "--nodes");

int run_project(const ProjectOptions& options);

}  // namespace collreplay::project
