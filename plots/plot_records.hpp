// What the plots and the report take from the results library (records/, the one reader of
// results in the tree) under their short names, and the median they draw of repeated samples.
#pragma once
#include <algorithm>
#include <vector>

#include "records/results_reader.hpp"
#include "records/run_facts.hpp"

namespace collreplay::plots {

using records::fabric_of;
using records::index_models;
using records::is_decoder_layer;
using records::model_of;
using records::ModelIndex;
using records::nodes_of;
using records::number_at;
using records::of_kind;
using records::read_results;
using records::Record;
using records::run_key;
using records::text_at;
using records::transport_of;

// 0 for no values.
inline double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace collreplay::plots
