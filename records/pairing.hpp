// Pairs the records of two results sets that measured the same thing, so that BASE and NEW can be
// set side by side (the `compare` program, a regression gate): the same kind of record, of the
// same model, op or unit, size, dtype and placement, on the same ranks, nodes, transport and
// fabric.
#pragma once
#include <compare>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "records/record.hpp"

namespace collreplay::records {

struct RecordKey {
  std::string kind;       // record kind: perf, op, unit, step, ...
  std::string model;      // model_of without an index; "?" when the record does not say
  std::string op;         // perf: the collective (all_gather); replay op: its name (ag.fwd.root)
  std::string unit;       // replay op and unit records: the FSDP unit
  std::string placement;  // perf: out_of_place | in_place
  std::string dtype;
  std::optional<double> size_bytes;  // `bytes`
  int ranks = 0;                     // `ranks`, else run.ranks
  int nodes = 1;                     // nodes_of
  std::string transport;             // transport_of
  std::string fabric;                // run.fabric, else the record's fabric; "" when neither

  auto operator<=>(const RecordKey&) const = default;
};

// The key of one record from its own fields and its run metadata.
RecordKey key_of(const Record& r);

// The key in words, for a line about an unpaired record:
// "perf all_gather out_of_place bf16 1048576 B, 2 ranks on 1 node, nvlink".
std::string describe(const RecordKey& key);

struct RecordPair {
  const Record* base;
  const Record* candidate;
};

struct Pairing {
  std::vector<RecordPair> pairs;              // in BASE order
  std::vector<const Record*> only_base;       // measured in BASE only
  std::vector<const Record*> only_candidate;  // measured in NEW only
};

using KeyFn = std::function<RecordKey(const Record&)>;

// Pairs records with equal keys. Records whose keys repeat (repetitions, several steps) pair in
// the order they were read: the first BASE one with the first NEW one, and so on; the rest are
// unpaired. `key` may drop fields (to set one transport against another, say).
Pairing pair_records(const std::vector<Record>& base, const std::vector<Record>& candidate,
                     const KeyFn& key = key_of);

}  // namespace collreplay::records
