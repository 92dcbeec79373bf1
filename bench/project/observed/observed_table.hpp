// A table of real training throughput that `project --observed` fits: one row per run, header
//   model,micro_batch,seq,nodes,gpus_per_node,fabric,tokens_per_s_per_gpu
// (columns in any order, extra columns ignored, blank lines and lines starting with '#' skipped).
// `fabric` is a free label: each label is fitted on its own. Several models may share a label.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace collreplay::project {

struct ObservedRow {
  std::string model;  // catalog name or path to a model .json
  std::int64_t micro_batch = 0, seq = 0;
  int nodes = 0, gpus_per_node = 0;
  std::string fabric;
  double tokens_per_s_per_gpu = 0;
  int line = 0;  // in its file, for messages
};

// The rows of `path`. UsageError with "path:line:" on an unreadable file, a missing column, a row
// with too few fields, a value that is not a positive number (integers where counts are meant),
// fewer than 2 rows, or a model the catalog (or `catalog_dir`) does not know.
std::vector<ObservedRow> read_observed_table(const std::string& path,
                                             const std::string& catalog_dir);

// The rows labelled `fabric`; UsageError naming the labels the table has when there are none.
std::vector<ObservedRow> rows_of_fabric(const std::vector<ObservedRow>& rows,
                                        const std::string& fabric, const std::string& path);

}  // namespace collreplay::project
