// What the report's tables print and what its figures draw are one number per quantity: the
// headroom figure's measured points are the headroom table's medians, the transports figure's bars
// the table's per-layer comm, the timeline's exposed communication the step table's; no table
// column holds records of two fabrics; the fabric answer opens the report.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "plots/figures.hpp"
#include "plots/headroom_lines.hpp"
#include "plots/report.hpp"
#include "records/fabric_answer.hpp"
#include "tests/support/results_fixtures.hpp"

namespace collreplay::plots {
namespace {

using test_support::results_fixtures;

std::vector<Record> read_fixtures() {
  std::ostringstream warnings;
  return read_results({results_fixtures()}, warnings);
}

std::string report_of(const std::vector<Record>& records) {
  return report_markdown(records, {{"fixtures"}, "out"}, {});
}

std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::stringstream in(row);
  std::string cell;
  std::getline(in, cell, '|');  // before the first bar
  while (std::getline(in, cell, '|')) {
    const auto first = cell.find_first_not_of(' '), last = cell.find_last_not_of(' ');
    out.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

// The rows of the Markdown table under the heading that starts with `heading`.
std::vector<std::vector<std::string>> table_under(const std::string& md,
                                                  const std::string& heading) {
  std::vector<std::vector<std::string>> rows;
  const std::size_t at = md.find("\n## " + heading);
  if (at == std::string::npos) return rows;
  std::stringstream lines(md.substr(at + 1));
  std::string line;
  std::getline(lines, line);  // the heading itself
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (line.rfind("## ", 0) == 0) break;
    if (line.rfind("|", 0) != 0) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    if (line.find("--:|") != std::string::npos || line.find("---|") != std::string::npos) continue;
    rows.push_back(cells(line));
  }
  if (!rows.empty()) rows.erase(rows.begin());  // the header row
  return rows;
}

double number(const std::string& text) { return std::stod(text); }

TEST(OneDefinition, HeadroomFigurePointsAreTheTablesMedians) {
  const std::vector<Record> records = read_fixtures();
  const auto table = table_under(report_of(records), "Overlap headroom per decoder layer");
  ASSERT_FALSE(table.empty());
  std::map<std::string, double> median_by_run;  // "model on fabric, N node(s)" -> median
  for (const auto& row : table) median_by_run[row.at(0)] = number(row.at(2));
  int compared = 0;
  for (const auto& [model, lines] : headroom_lines(records))
    for (const auto& [fabric, line] : lines.by_fabric)
      for (const HeadroomPoint& p : line.measured) {
        const int nodes = static_cast<int>(p.nodes);
        const std::string label = model + " on " + fabric + ", " + std::to_string(nodes) +
                                  (nodes == 1 ? " node" : " nodes");
        ASSERT_TRUE(median_by_run.count(label)) << label;
        EXPECT_NEAR(median_by_run[label], p.headroom_ms, 0.005) << label;  // the table's 2 decimals
        ++compared;
      }
  EXPECT_GE(compared, 6);
}

TEST(OneDefinition, TransportBarsAreTheTablesPerLayerComm) {
  const std::vector<Record> records = read_fixtures();
  const std::string md = report_of(records);
  const TransportBars bars = transport_bars(records);
  int compared = 0;
  for (const auto& [label, by_layer] : bars.comm_ms) {
    // The run's own table of every layer, under its <details> summary.
    const std::string summary = "every layer: " + bars.model + " on " + label + "</summary>";
    const std::size_t at = md.find(summary);
    ASSERT_NE(at, std::string::npos) << summary;
    std::stringstream lines(md.substr(at, md.find("</details>", at) - at));
    std::string line;
    std::map<int, double> table_comm;
    while (std::getline(lines, line))
      if (line.rfind("| ", 0) == 0 && line.find("layer") == std::string::npos) {
        const auto row = cells(line);
        table_comm[std::stoi(row.at(0))] = number(row.at(2));
      }
    for (const auto& [layer, ms] : by_layer) {
      ASSERT_TRUE(table_comm.count(layer)) << label << " layer " << layer;
      EXPECT_NEAR(table_comm[layer], ms, 0.005) << label << " layer " << layer;
      ++compared;
    }
  }
  EXPECT_GE(compared, 8);
}

TEST(OneDefinition, TimelineExposedCommIsTheStepTables) {
  const std::vector<Record> records = read_fixtures();
  const TimelineFacts facts = timeline_facts(records);
  ASSERT_TRUE(facts.exposed_comm_ms.has_value());
  // The step table's row of the run the timeline draws: its exposed comm column.
  const auto table = table_under(report_of(records), "Step summary");
  ASSERT_FALSE(table.empty());
  bool found = false;
  for (const auto& row : table)
    if (row.size() > 13 && row.at(13) != "-" &&
        std::fabs(number(row.at(13)) - *facts.exposed_comm_ms) < 0.05)
      found = true;
  EXPECT_TRUE(found) << "no step row with exposed comm " << *facts.exposed_comm_ms;
}

// Two runs of different fabrics over the same verified transport, op, size and node count.
Record perf_record(const std::string& fabric, double busbw) {
  Record r;
  r.data = {{"record", "perf"},      {"op", "all_gather"}, {"bytes", 524288},
            {"busbw_GBps", busbw},   {"placement", "out_of_place"},
            {"run", {{"fabric", fabric}, {"transport_verified", "tcp"}, {"nodes", 2}}}};
  r.file = fabric + ".jsonl";
  return r;
}

TEST(OneDefinition, NoTableColumnHoldsRecordsOfTwoFabrics) {
  const std::vector<Record> records = {perf_record("ib-ndr-8x400", 463.65),
                                       perf_record("eth-10g", 4.20)};
  const std::string md = report_of(records);
  const auto table = table_under(md, "Bus bandwidth per message size");
  ASSERT_EQ(table.size(), 1u) << md;
  // One column per fabric, each its own value: never their mean (233.93).
  EXPECT_NE(md.find("ib-ndr-8x400 over tcp all_gather"), std::string::npos) << md;
  EXPECT_NE(md.find("eth-10g over tcp all_gather"), std::string::npos) << md;
  EXPECT_EQ(md.find("233.9"), std::string::npos) << md;
  ASSERT_EQ(table[0].size(), 3u);
  EXPECT_TRUE((table[0][1] == "4.20" && table[0][2] == "463.65") ||
              (table[0][1] == "463.65" && table[0][2] == "4.20"))
      << table[0][1] << " " << table[0][2];
}

TEST(OneDefinition, TheFabricAnswerOpensTheReport) {
  records::FabricAnswer answer;
  answer.model = "qwen2.5-72b";
  answer.nodes = 8;
  answer.fabric_a = "ib-ndr-8x400";
  answer.fabric_b = "eth-100g";
  answer.layout_a = "tp2+fsdp";
  answer.layout_b = "fsdp+recompute";
  answer.tokens_per_s_a = 1000;
  answer.tokens_per_s_b = 65;
  answer.ratio = 0.065;
  answer.same_layout_ratio = 0.033;
  answer.assumptions = {"model:h100 (default)", "plan", "fsdp1", 1, 2048, 8};
  Record r;
  r.data = records::answer_json(answer);
  const std::string md = report_of({r});
  const std::size_t at = md.find("| 8 | 0.065 |");
  ASSERT_NE(at, std::string::npos) << md;
  EXPECT_LT(at, md.find("## Environment"));
  EXPECT_NE(md.find("| tp2+fsdp | fsdp+recompute | 0.033 |"), std::string::npos) << md;
  EXPECT_NE(md.find("compute model:h100 (default), optimizer states plan, fsdp1, micro-batch 1 x "
                    "seq 2048, 8 GPUs/node"),
            std::string::npos)
      << md;
  // The record reads back as it was written.
  const auto back = records::answer_of(r.data);
  ASSERT_TRUE(back);
  EXPECT_EQ(records::answer_line(*back), records::answer_line(answer));
}

}  // namespace
}  // namespace collreplay::plots
