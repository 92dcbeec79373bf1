#include "records/pairing.hpp"

#include <deque>
#include <iomanip>
#include <map>
#include <sstream>

#include "records/run_facts.hpp"

namespace collreplay::records {

RecordKey key_of(const Record& r) {
  const nlohmann::json& d = r.data;
  RecordKey key;
  key.kind = r.kind();
  key.model = model_of(d, {});
  // A replay op record's `op` is its index in the schedule; its name says what it is.
  key.op = text_at(d, "op").value_or(text_at(d, "name").value_or(""));
  key.unit = text_at(d, "unit").value_or("");
  key.placement = text_at(d, "placement").value_or("");
  key.dtype = text_at(d, "dtype").value_or("");
  key.size_bytes = number_at(d, "bytes");
  key.ranks =
      static_cast<int>(number_at(d, "ranks").value_or(number_at(d, "run/ranks").value_or(0)));
  key.nodes = nodes_of(d);
  key.transport = transport_of(d);
  key.fabric = text_at(d, "run/fabric").value_or(text_at(d, "fabric").value_or(""));
  return key;
}

std::string describe(const RecordKey& key) {
  std::ostringstream text;
  text << key.kind;
  if (key.model != "?") text << " " << key.model;
  for (const std::string* part : {&key.op, &key.unit, &key.placement, &key.dtype})
    if (!part->empty()) text << " " << *part;
  if (key.size_bytes) text << " " << std::fixed << std::setprecision(0) << *key.size_bytes << " B";
  text << ", " << key.ranks << (key.ranks == 1 ? " rank" : " ranks") << " on " << key.nodes
       << (key.nodes == 1 ? " node" : " nodes") << ", " << key.transport;
  if (!key.fabric.empty() && key.fabric != key.transport) text << " (" << key.fabric << ")";
  return text.str();
}

Pairing pair_records(const std::vector<Record>& base, const std::vector<Record>& candidate,
                     const KeyFn& key) {
  // NEW's records by key, in the order they were read; pairing takes from the front.
  std::map<RecordKey, std::deque<const Record*>> waiting;
  for (const Record& r : candidate) waiting[key(r)].push_back(&r);
  Pairing pairing;
  for (const Record& r : base) {
    auto it = waiting.find(key(r));
    if (it == waiting.end() || it->second.empty()) {
      pairing.only_base.push_back(&r);
      continue;
    }
    pairing.pairs.push_back({&r, it->second.front()});
    it->second.pop_front();
  }
  // What NEW has left, in the order it was read.
  for (const Record& r : candidate) {
    std::deque<const Record*>& left = waiting[key(r)];
    if (!left.empty() && left.front() == &r) {
      pairing.only_candidate.push_back(&r);
      left.pop_front();
    }
  }
  return pairing;
}

}  // namespace collreplay::records
