#include "plots/headroom_lines.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace collreplay::plots {
namespace {

// "micro-batch 2 × 2048, 8 GPUs/node[, EP 8]" from a projection record, ""
// where it lacks them.
std::string workload_of(const nlohmann::json& r) {
  const auto micro_batch = number_at(r, "micro_batch"), seq = number_at(r, "seq");
  const auto gpus = number_at(r, "gpus_per_node"), ep = number_at(r, "ep");
  if (!micro_batch || !seq || !gpus) return "";
  char text[128];
  std::snprintf(text, sizeof text, "micro-batch %.0f × %.0f, %.0f GPU%s/node", *micro_batch, *seq,
                *gpus, *gpus == 1 ? "" : "s");
  // The layout by name where the record has it ("ep8+fsdp+recompute"), else its EP degree.
  if (auto layout = text_at(r, "layout")) return *layout + ", " + text;
  return text + (ep && *ep > 1 ? ", EP " + std::to_string(static_cast<int>(*ep)) : "");
}

// Digits compare as numbers: qwen2.5-7b before qwen2.5-72b.
bool natural_less(const std::string& a, const std::string& b) {
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t end_a = i, end_b = j;
      while (end_a < a.size() && digit(a[end_a])) ++end_a;
      while (end_b < b.size() && digit(b[end_b])) ++end_b;
      const std::string na = a.substr(i, end_a - i), nb = b.substr(j, end_b - j);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = end_a;
      j = end_b;
    } else if (a[i] != b[j]) {
      return a[i] < b[j];
    } else {
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

std::map<std::string, ModelLines> headroom_lines(const std::vector<Record>& records) {
  // Per run, the median decoder layer (quantities.hpp: the headroom table's median too); runs of
  // one model, fabric and node count by their median.
  std::map<std::pair<std::string, std::string>, std::map<int, std::vector<double>>> measured;
  std::map<std::pair<std::string, std::string>, std::map<int, double>> ranks;
  std::map<std::string, double> ranks_of_run;
  for (const Record* r : of_kind(records, "unit"))
    if (const nlohmann::json* run = records::field_at(r->data, "run"); run && run->is_object())
      ranks_of_run[run_key(r->data)] = number_at(*run, "ranks").value_or(0);
  for (const RunLayers& run : run_layers(records)) {
    if (run.headroom_ms.empty()) continue;
    const std::pair<std::string, std::string> line{run.model, run.fabric};
    measured[line][run.nodes].push_back(median_layer_headroom_ms(run));
    ranks[line][run.nodes] = std::max(ranks[line][run.nodes], ranks_of_run[run.run]);
  }
  std::map<std::string, ModelLines> lines;
  for (const auto& [key, points] : measured)
    for (const auto& [nodes, values] : points) {
      const double h = median_of(values);
      // Tipped needs the fabric in the step: more than one node, and more than one rank (one
      // rank uses no network, whatever its headroom reads; an unknown count is more than one).
      const bool network = nodes > 1 && ranks[key][nodes] != 1;
      lines[key.first].by_fabric[key.second].measured.push_back(
          {double(nodes), h, h, h, network && h < 0});
    }
  for (const Record* r : of_kind(records, "projection")) {
    const auto nodes = number_at(r->data, "nodes");
    const auto h = number_at(r->data, "headroom_ms");
    if (!nodes || !h) continue;
    ModelLines& model = lines[text_at(r->data, "model").value_or("?")];
    HeadroomLine& line = model.by_fabric[fabric_of(r->data)];
    // The projection's own tipping point; records without one (older files) by the headroom.
    const nlohmann::json& tip = r->data.contains("tipping_point_nodes")
                                    ? r->data["tipping_point_nodes"]
                                    : nlohmann::json();
    const bool tipped = r->data.contains("tipping_point_nodes")
                            ? tip.is_number() && *nodes >= tip.get<double>()
                            : *h < 0 && number_at(r->data, "world").value_or(2) > 1;
    line.projected.push_back({*nodes, *h, number_at(r->data, "headroom_lo_ms").value_or(*h),
                              number_at(r->data, "headroom_hi_ms").value_or(*h), tipped});
    if (auto words = text_at(r->data, "tipping_point")) line.projected_tipping = *words;
    const auto vs = number_at(r->data, "per_gpu_vs_first");
    const auto vs_lo = number_at(r->data, "per_gpu_vs_first_lo");
    const auto vs_hi = number_at(r->data, "per_gpu_vs_first_hi");
    const auto vs_nodes = number_at(r->data, "per_gpu_vs_first_nodes");
    if (vs && vs_lo && vs_hi && vs_nodes && (!line.scaling || *nodes >= line.scaling->nodes))
      line.scaling = HeadroomLine::Scaling{*vs_nodes, *nodes, *vs, *vs_lo, *vs_hi};
    if (r->data.contains("tipping_from_nodes")) {
      line.has_tipping_fields = true;
      line.tip_from_nodes = number_at(r->data, "tipping_from_nodes");
      line.tip_nodes = number_at(r->data, "tipping_point_nodes");
      line.tip_to_nodes = number_at(r->data, "tipping_to_nodes");
    }
    if (auto source = text_at(r->data, "fabric_source")) line.fabric_source = *source;
    if (std::string workload = workload_of(r->data); !workload.empty()) model.workload = workload;
    if (auto compute = text_at(r->data, "compute"); compute && compute->starts_with("model:"))
      model.compute = *compute;
  }
  const auto by_nodes = [](const HeadroomPoint& a, const HeadroomPoint& b) {
    return a.nodes < b.nodes;
  };
  for (auto& [model, model_lines] : lines)
    for (auto& [fabric, line] : model_lines.by_fabric) {
      std::sort(line.measured.begin(), line.measured.end(), by_nodes);
      std::sort(line.projected.begin(), line.projected.end(), by_nodes);
    }
  return lines;
}

std::optional<double> crossing_nodes(const std::vector<HeadroomPoint>& points) {
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const HeadroomPoint &a = points[i], &b = points[i + 1];
    if (a.headroom_ms >= 0 && b.headroom_ms < 0) {
      const double f = a.headroom_ms / (a.headroom_ms - b.headroom_ms);
      return std::exp2(std::log2(a.nodes) + f * (std::log2(b.nodes) - std::log2(a.nodes)));
    }
  }
  return std::nullopt;
}

std::optional<TippingInterval> tipping_interval(const std::vector<HeadroomPoint>& points) {
  for (std::size_t i = 0; i < points.size(); ++i)
    if (points[i].tipped)
      return TippingInterval{i ? points[i - 1].nodes : 0, points[i].nodes};
  return std::nullopt;
}

std::string tipping_words(const std::vector<HeadroomPoint>& points) {
  const auto count = [](double nodes) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", nodes);
    return std::string(text);
  };
  if (points.empty()) return "no points";
  const std::optional<TippingInterval> tip = tipping_interval(points);
  if (!tip) return "stays positive up to " + count(points.back().nodes) + " nodes";
  if (tip->before_nodes == 0) return "tips from " + count(tip->after_nodes) + " node(s) on";
  return "tips between " + count(tip->before_nodes) + " and " + count(tip->after_nodes) + " nodes";
}

std::string projected_tipping_words(const HeadroomLine& line) {
  const auto count = [](double nodes) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", nodes);
    return std::string(text);
  };
  if (line.projected.empty()) return "no projection";
  if (!line.has_tipping_fields) return tipping_words(line.projected);
  if (!line.tip_from_nodes)
    return "does not tip up to " + count(line.projected.back().nodes) + " nodes";
  if (line.tip_nodes && line.tip_to_nodes && *line.tip_from_nodes == *line.tip_to_nodes)
    return "tips at " + count(*line.tip_nodes) + " nodes";
  if (line.tip_to_nodes)
    return "tips between " + count(*line.tip_from_nodes) + " and " + count(*line.tip_to_nodes) +
           " nodes";
  return "may tip from " + count(*line.tip_from_nodes) + " nodes (not surely within " +
         count(line.projected.back().nodes) + ")";
}

std::string scaling_words(const HeadroomLine& line) {
  if (!line.scaling || line.scaling->nodes <= line.scaling->first_nodes) return "";
  const HeadroomLine::Scaling& s = *line.scaling;
  char text[160];
  std::snprintf(text, sizeof text, "per GPU at %g nodes: %.2f [%.2f, %.2f] of %g node%s", s.nodes,
                s.ratio, s.lo, s.hi, s.first_nodes, s.first_nodes == 1 ? "'s" : "s'");
  return text;
}

std::string line_tipping_words(const HeadroomLine& line) {
  if (line.projected.empty() || (line.measured.size() > 1 && crossing_nodes(line.measured)))
    return tipping_words(line.measured) + (line.projected.empty() ? "" : " (measured)");
  return projected_tipping_words(line);
}

std::vector<std::string> model_order(const std::map<std::string, ModelLines>& lines) {
  const auto measured = [&](const std::string& model) {
    for (const auto& [fabric, line] : lines.at(model).by_fabric)
      if (!line.measured.empty()) return true;
    return false;
  };
  std::vector<std::string> order;
  for (const auto& [model, model_lines] : lines) order.push_back(model);
  std::sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
    if (measured(a) != measured(b)) return measured(a);
    return natural_less(a, b);
  });
  return order;
}

}  // namespace collreplay::plots
