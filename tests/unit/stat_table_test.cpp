// perf stat's rows grouped per core/socket, and their JSON lines.
#include "analysis/stat/stat_table.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "events/parse_events.hpp"
#include "output/stat/stat_printer.hpp"

using namespace sonde;

namespace {

std::vector<events::EventSpec> two_events() {
  std::vector<events::EventSpec> events;
  EXPECT_TRUE(events::parse_events("task-clock,page-faults", events));
  return events;
}

// Four CPUs: two sockets of two cores each, listed out of order.
std::vector<analysis::StatSlot> four_cpus() {
  return {{3, -1, "", 1, 0, 1, 0}, {0, -1, "", 0, 0, 0, 0}, {2, -1, "", 1, 0, 0, 0}, {1, -1, "", 0, 0, 1, 0}};
}

std::string printed(const std::vector<analysis::StatCounterLine>& lines, output::StatPrintOptions options) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  output::StatPrinter(out, options).print_counters(lines);
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

}  // namespace

TEST(StatTable, PerSocketSumsItsCpusGroupByGroup) {
  auto events = two_events();
  // task-clock 1 ms on each CPU; page-faults = 10 * (cpu + 1).
  std::vector<std::vector<kernel::CounterReading>> readings(2);
  for (const auto& slot : four_cpus()) {
    readings[0].push_back({1000000, 1000000, 1000000});
    readings[1].push_back({static_cast<uint64_t>(10 * (slot.cpu + 1)), 1000000, 1000000});
  }
  analysis::StatTableOptions options{analysis::Aggregation::per_socket, true};
  auto lines = analysis::build_stat_lines(events, readings, {true, true}, four_cpus(), options, 1e6);
  ASSERT_EQ(lines.size(), 4u);
  // Socket 0 (CPUs 0, 1) with both events, then socket 1 (CPUs 2, 3).
  EXPECT_EQ(lines[0].prefix.socket, 0);
  EXPECT_EQ(lines[0].prefix.cpus, 2);
  EXPECT_EQ(lines[0].name, "task-clock");
  EXPECT_DOUBLE_EQ(lines[0].value, 2.0);
  EXPECT_EQ(lines[1].name, "page-faults");
  EXPECT_DOUBLE_EQ(lines[1].value, 10 + 20);
  EXPECT_EQ(lines[3].prefix.socket, 1);
  EXPECT_DOUBLE_EQ(lines[3].value, 30 + 40);
  EXPECT_EQ(printed({lines[1]}, {}).substr(0, 30), "S0        2                 30");
  EXPECT_EQ(printed({lines[1]}, {.csv_separator = ","}).substr(0, 18), "S0,2,30,,page-faul");
}

TEST(StatTable, PerCoreKeysOnSocketDieAndCore) {
  auto events = two_events();
  std::vector<std::vector<kernel::CounterReading>> readings(
      2, std::vector<kernel::CounterReading>(4, {5, 1, 1}));
  analysis::StatTableOptions options{analysis::Aggregation::per_core, true};
  auto lines = analysis::build_stat_lines(events, readings, {true, true}, four_cpus(), options, 1e6);
  ASSERT_EQ(lines.size(), 8u);
  std::vector<std::pair<int, int>> cores;
  for (size_t i = 0; i < lines.size(); i += 2)
    cores.push_back({lines[i].prefix.socket, lines[i].prefix.core});
  EXPECT_EQ(cores, (std::vector<std::pair<int, int>>{{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
  EXPECT_EQ(printed({lines[3]}, {}).substr(0, 20), "S0-D0-C1           1");
  EXPECT_EQ(
      printed({lines[3]}, {.json = true}),
      "{\"core\" : \"S0-D0-C1\", \"aggregate-number\" : 1, \"counter-value\" : \"5.000000\", \"unit\" : "
      "\"\", "
      "\"event\" : \"page-faults\", \"event-runtime\" : 1, \"pcnt-running\" : 100.00, \"metric-value\" : "
      "1000.000000, \"metric-unit\" : \"M/sec\"}\n");
}

TEST(StatTable, JsonOfAnUncountedEventHasAnEmptyMetricUnit) {
  analysis::StatCounterLine line;
  line.state = analysis::StatCounterLine::State::not_supported;
  line.name = "cycles";
  EXPECT_EQ(printed({line}, {.json = true}),
            "{\"counter-value\" : \"<not supported>\", \"unit\" : \"\", \"event\" : \"cycles\", "
            "\"event-runtime\" : 0, "
            "\"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n");
}
