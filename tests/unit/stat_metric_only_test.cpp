// perf stat --metric-only's rows and header with a PMU's metrics (this machine has none): the
// widths perf gives each metric, the colour width of a miss ratio, CSV and JSON values.
#include <gtest/gtest.h>

#include <cstdio>

#include "analysis/stat/stat_metrics.hpp"
#include "analysis/stat/stat_table.hpp"
#include "events/parse_events.hpp"
#include "output/stat/stat_printer.hpp"

using namespace sonde;

namespace {

std::string printed_metric_only(const std::vector<analysis::StatCounterLine>& lines,
                                output::StatPrintOptions options) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  options.metric_only = true;
  output::StatPrinter(out, options).print_counters(lines);
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

analysis::StatCounterLine line(std::string name, std::optional<analysis::Metric> metric, int cpu = -1) {
  analysis::StatCounterLine l;
  l.name = std::move(name);
  l.metric = std::move(metric);
  if (cpu >= 0) {
    l.prefix.kind = analysis::StatLinePrefix::Kind::cpu;
    l.prefix.cpu = cpu;
  }
  return l;
}

// cycles 3.012 GHz, instructions 1.23 per cycle, branch-misses 2.50% of branches; task-clock's
// "CPUs utilized" and the rates are not columns.
std::vector<analysis::StatCounterLine> pmu_row(int cpu = -1) {
  using analysis::Metric;
  using analysis::MetricStyle;
  return {line("task-clock", Metric{0.998, "CPUs utilized"}, cpu),
          line("page-faults", Metric{1.2, "K/sec"}, cpu), line("cycles", Metric{3.012, "GHz"}, cpu),
          line("instructions", Metric{1.23, "insn per cycle", MetricStyle::per_insn}, cpu),
          line("branch-misses", Metric{2.5, "of all branches", MetricStyle::percent}, cpu)};
}

}  // namespace

TEST(StatMetricOnly, ValuesInPerfsWidths) {
  std::string text = printed_metric_only(pmu_row(), {});
  // An empty header line (perf 6.1.y names the columns only with -A), then the row: 20 wide for
  // GHz and IPC; the miss ratio's unit names its event (29 characters: 30 wide) plus the width
  // of perf's "normal" colour (3).
  EXPECT_EQ(text, "\n" + std::string(15, ' ') + "3.012 " + std::string(15, ' ') + "1.23  " +
                      std::string(28, ' ') + "2.50% \n");
}

TEST(StatMetricOnly, UncountedCounterLeavesAnEmptyCell) {
  auto lines = pmu_row();
  lines[2].state = analysis::StatCounterLine::State::not_supported;
  lines[2].metric.reset();
  std::string text = printed_metric_only(lines, {});
  EXPECT_EQ(text.substr(0, 22), "\n" + std::string(21, ' '));
}

TEST(StatMetricOnly, HighMissRatioIsColouredWider) {
  auto lines = pmu_row();
  lines[4].metric->value = 12.5;  // above 5%: a colour of 8 bytes instead of 3
  std::string text = printed_metric_only(lines, {});
  EXPECT_NE(text.find(std::string(32, ' ') + "12.50% \n"), std::string::npos) << text;
}

TEST(StatMetricOnly, CsvAndJsonCutTheValues) {
  output::StatPrintOptions csv;
  csv.csv_separator = ",";
  EXPECT_EQ(printed_metric_only(pmu_row(), csv), "\n3.012,1.23,2.50,\n");
  output::StatPrintOptions json;
  json.json = true;
  EXPECT_EQ(printed_metric_only(pmu_row(), json),
            "{}\n{\"metric-value\" : \"3.012\"}{\"metric-value\" : \"1.23\"}{\"metric-value\" : \"2.50\"}\n");
}

TEST(StatMetricOnly, PerCpuRowsUnderTheNamedColumns) {
  std::vector<events::EventSpec> events;
  ASSERT_TRUE(events::parse_events("task-clock,cycles,instructions,branches,branch-misses", events));
  output::StatPrintOptions options;
  options.metric_header = analysis::metric_only_header(events);
  EXPECT_EQ(options.metric_header,
            (std::vector<std::string>{"GHz", "insn per cycle", "branch-misses of all branches"}));
  auto lines = pmu_row(0);
  auto cpu1 = pmu_row(1);
  lines.insert(lines.end(), cpu1.begin(), cpu1.end());
  std::string text = printed_metric_only(lines, options);
  EXPECT_EQ(text.substr(0, text.find('\n')), std::string(6, ' ') + std::string(17, ' ') +
                                                 "GHz       insn per cycle branch-misses of all branches ");
  EXPECT_NE(text.find("\nCPU0       " + std::string(15, ' ') + "3.012 "), std::string::npos) << text;
  EXPECT_NE(text.find("\nCPU1       "), std::string::npos) << text;
}
