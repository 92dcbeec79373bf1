#include "records/fabric_answer.hpp"

#include <cstdio>
#include <sstream>

#include "records/record.hpp"

namespace collreplay::records {
namespace {

nlohmann::json or_null(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

nlohmann::json or_null(const std::string& text) {
  return text.empty() ? nlohmann::json() : nlohmann::json(text);
}

std::string fraction(const std::optional<double>& value) {
  if (!value) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", *value);
  return text;
}

std::string interval(const FabricAnswer& a) {
  if (!a.ratio_lo || !a.ratio_hi) return "";
  return "[" + fraction(a.ratio_lo) + ", " + fraction(a.ratio_hi) + "]";
}

std::string layout_or_none(const std::string& layout) {
  return layout.empty() ? "nothing fits" : layout;
}

// The cells of one row, shared by the text and the Markdown table.
struct Cells {
  std::string nodes, ratio, interval, layout_a, layout_b, same_layout;
};

Cells cells(const FabricAnswer& a) {
  Cells c;
  c.nodes = std::to_string(a.nodes);
  c.ratio = fraction(a.ratio);
  c.interval = interval(a);
  c.layout_a = layout_or_none(a.layout_a);
  c.layout_b = layout_or_none(a.layout_b);
  c.same_layout = a.layout_a.empty() ? "-"
                  : a.same_layout_ratio ? fraction(a.same_layout_ratio)
                                        : "no fit on " + a.fabric_b;
  return c;
}

std::string heading(const FabricAnswer& a) {
  return a.model + ": " + a.fabric_b + "'s whole-job tokens/s as a fraction of " + a.fabric_a +
         "'s, each at its best layout that fits (" + assumptions_words(a.assumptions) + ")";
}

}  // namespace

nlohmann::json answer_json(const FabricAnswer& a) {
  const AnswerAssumptions& s = a.assumptions;
  return {{"record", "fabric_comparison"},
          {"model", a.model},
          {"nodes", a.nodes},
          {"fabric_a", a.fabric_a},
          {"fabric_b", a.fabric_b},
          {"layout_a", or_null(a.layout_a)},
          {"layout_b", or_null(a.layout_b)},
          {"tokens_per_s_a", or_null(a.tokens_per_s_a)},
          {"tokens_per_s_b", or_null(a.tokens_per_s_b)},
          {"ratio", or_null(a.ratio)},
          {"ratio_lo", or_null(a.ratio_lo)},
          {"ratio_hi", or_null(a.ratio_hi)},
          {"same_layout_ratio", or_null(a.same_layout_ratio)},
          {"compute", s.compute},
          {"optimizer_states", s.optimizer_states},
          {"fsdp", s.fsdp},
          {"micro_batch", s.micro_batch},
          {"seq", s.seq},
          {"gpus_per_node", s.gpus_per_node}};
}

std::optional<FabricAnswer> answer_of(const nlohmann::json& r) {
  if (record_kind(r) != "fabric_comparison") return std::nullopt;
  const auto model = text_at(r, "model"), a = text_at(r, "fabric_a"), b = text_at(r, "fabric_b");
  const auto nodes = number_at(r, "nodes");
  if (!model || !a || !b || !nodes) return std::nullopt;
  FabricAnswer answer;
  answer.model = *model;
  answer.nodes = static_cast<int>(*nodes);
  answer.fabric_a = *a;
  answer.fabric_b = *b;
  answer.layout_a = text_at(r, "layout_a").value_or("");
  answer.layout_b = text_at(r, "layout_b").value_or("");
  answer.tokens_per_s_a = number_at(r, "tokens_per_s_a");
  answer.tokens_per_s_b = number_at(r, "tokens_per_s_b");
  answer.ratio = number_at(r, "ratio");
  answer.ratio_lo = number_at(r, "ratio_lo");
  answer.ratio_hi = number_at(r, "ratio_hi");
  answer.same_layout_ratio = number_at(r, "same_layout_ratio");
  AnswerAssumptions& s = answer.assumptions;
  s.compute = text_at(r, "compute").value_or("?");
  s.optimizer_states = text_at(r, "optimizer_states").value_or("?");
  s.fsdp = text_at(r, "fsdp").value_or("?");
  s.micro_batch = static_cast<std::int64_t>(number_at(r, "micro_batch").value_or(0));
  s.seq = static_cast<std::int64_t>(number_at(r, "seq").value_or(0));
  s.gpus_per_node = static_cast<int>(number_at(r, "gpus_per_node").value_or(0));
  return answer;
}

std::string assumptions_words(const AnswerAssumptions& s) {
  return "compute " + s.compute + ", optimizer states " + s.optimizer_states + ", " + s.fsdp +
         ", micro-batch " + std::to_string(s.micro_batch) + " x seq " + std::to_string(s.seq) +
         ", " + std::to_string(s.gpus_per_node) + " GPUs/node";
}

std::string answer_line(const FabricAnswer& a) {
  const Cells c = cells(a);
  std::string line = c.nodes + (a.nodes == 1 ? " node: " : " nodes: ");
  if (!a.ratio) {
    line += "no answer: " + (a.layout_a.empty() ? "nothing fits on " + a.fabric_a
                                                : "nothing fits on " + a.fabric_b);
    return line;
  }
  line += a.fabric_b + " gives " + c.ratio + (c.interval.empty() ? "" : " " + c.interval) +
          " of " + a.fabric_a + "'s tokens/s (best layouts: " + c.layout_a + " on " + a.fabric_a +
          ", " + c.layout_b + " on " + a.fabric_b + "); like for like, " + c.layout_a +
          " on both: " + c.same_layout;
  return line;
}

std::string answer_table_text(const std::vector<FabricAnswer>& answers) {
  if (answers.empty()) return "";
  const FabricAnswer& first = answers.front();
  std::ostringstream out;
  out << "# answer: " << heading(first) << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%7s %7s %16s  %-22s %-22s %s\n", "nodes", "ratio", "[interval]",
                ("best on " + first.fabric_a).substr(0, 22).c_str(),
                ("best on " + first.fabric_b).substr(0, 22).c_str(),
                "like for like (A's layout on both)");
  out << line;
  for (const FabricAnswer& a : answers) {
    const Cells c = cells(a);
    std::snprintf(line, sizeof line, "%7s %7s %16s  %-22s %-22s %s\n", c.nodes.c_str(),
                  c.ratio.c_str(), c.interval.c_str(), c.layout_a.c_str(), c.layout_b.c_str(),
                  c.same_layout.c_str());
    out << line;
  }
  return out.str();
}

std::string answer_table_markdown(const std::vector<FabricAnswer>& answers) {
  if (answers.empty()) return "";
  const FabricAnswer& first = answers.front();
  std::ostringstream md;
  md << "**" << heading(first) << "**\n\n"
     << "| nodes | " << first.fabric_b << " / " << first.fabric_a << " | interval | best on "
     << first.fabric_a << " | best on " << first.fabric_b
     << " | like for like (best on " << first.fabric_a << ", run on both) |\n"
     << "|--:|--:|--:|---|---|--:|\n";
  for (const FabricAnswer& a : answers) {
    const Cells c = cells(a);
    md << "| " << c.nodes << " | " << c.ratio << " | " << (c.interval.empty() ? "-" : c.interval)
       << " | " << c.layout_a << " | " << c.layout_b << " | " << c.same_layout << " |\n";
  }
  md << "\n";
  return md.str();
}

}  // namespace collreplay::records
