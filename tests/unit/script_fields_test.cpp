// perf script's -F grammar and its fit to a file's events.
#include "output/script/script_fields.hpp"

#include <gtest/gtest.h>

#include "analysis/script/script_filter.hpp"

using namespace sonde;
using namespace sonde::output;

namespace {

perfdata::EventAttr event_of(uint32_t type, uint64_t sample_type) {
  perfdata::EventAttr event;
  event.attr.type = type;
  event.attr.sample_type = sample_type;
  event.name = type == PERF_TYPE_TRACEPOINT ? "sched:sched_switch" : "cpu-clock";
  return event;
}

constexpr uint64_t kSampleBasics = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;

}  // namespace

TEST(ScriptFields, DefaultsArePerfs) {
  ScriptFields fields = default_script_fields();
  uint64_t sw = fields.of(PERF_TYPE_SOFTWARE).fields;
  EXPECT_TRUE(sw & kFieldSymoff);
  EXPECT_TRUE(sw & kFieldPeriod);
  EXPECT_FALSE(sw & kFieldTrace);
  uint64_t tp = fields.of(PERF_TYPE_TRACEPOINT).fields;
  EXPECT_TRUE(tp & kFieldTrace);
  EXPECT_FALSE(tp & kFieldIp);
}

TEST(ScriptFields, ListReplacesPlusMinusChange) {
  ScriptFields fields = default_script_fields();
  std::vector<std::string> warnings;
  ASSERT_TRUE(apply_field_spec(fields, "comm,tid,trace", warnings));
  EXPECT_EQ(fields.of(PERF_TYPE_TRACEPOINT).fields, kFieldComm | kFieldTid | kFieldTrace);
  EXPECT_EQ(fields.of(PERF_TYPE_SOFTWARE).fields, kFieldComm | kFieldTid);  // trace is not for software
  EXPECT_FALSE(warnings.empty());

  ScriptFields changed = default_script_fields();
  ASSERT_TRUE(apply_field_spec(changed, "-period,+pid", warnings));
  EXPECT_FALSE(changed.of(PERF_TYPE_SOFTWARE).fields & kFieldPeriod);
  EXPECT_TRUE(changed.of(PERF_TYPE_SOFTWARE).fields & kFieldPid);
  EXPECT_TRUE(changed.of(PERF_TYPE_SOFTWARE).fields & kFieldSym);

  ScriptFields typed = default_script_fields();
  ASSERT_TRUE(apply_field_spec(typed, "trace:comm,trace", warnings));
  EXPECT_EQ(typed.of(PERF_TYPE_TRACEPOINT).fields, kFieldComm | kFieldTrace);
  EXPECT_EQ(typed.of(PERF_TYPE_SOFTWARE).fields, default_script_fields().of(PERF_TYPE_SOFTWARE).fields);
}

TEST(ScriptFields, BadSpecsAreErrors) {
  ScriptFields fields = default_script_fields();
  std::vector<std::string> warnings;
  EXPECT_FALSE(apply_field_spec(fields, "comm,nosuch", warnings));
  EXPECT_FALSE(apply_field_spec(fields, "comm,+tid", warnings));
  EXPECT_FALSE(apply_field_spec(fields, "bogus:comm", warnings));
  EXPECT_FALSE(apply_field_spec(fields, "sw:trace", warnings));
  EXPECT_FALSE(apply_field_spec(fields, "", warnings));
}

TEST(ScriptFields, FitDropsDefaultsTheSamplesCannotFillAndRefusesNamedOnes) {
  std::vector<perfdata::EventAttr> events = {event_of(PERF_TYPE_SOFTWARE, kSampleBasics)};
  ScriptFields fields = default_script_fields();
  bool use_callchain = true;
  ASSERT_TRUE(fit_fields_to_events(fields, events, use_callchain));
  EXPECT_FALSE(fields.of(PERF_TYPE_SOFTWARE).fields & kFieldCpu);  // no PERF_SAMPLE_CPU
  EXPECT_FALSE(use_callchain);                                     // no event has callchains

  ScriptFields named = default_script_fields();
  std::vector<std::string> warnings;
  ASSERT_TRUE(apply_field_spec(named, "comm,cpu", warnings));
  use_callchain = true;
  EXPECT_FALSE(fit_fields_to_events(named, events, use_callchain));
}

TEST(ScriptFields, TracepointsWithCallchainsGainCodeFields) {
  std::vector<perfdata::EventAttr> events = {event_of(
      PERF_TYPE_TRACEPOINT, kSampleBasics | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW | PERF_SAMPLE_CALLCHAIN)};
  ScriptFields fields = default_script_fields();
  bool use_callchain = true;
  ASSERT_TRUE(fit_fields_to_events(fields, events, use_callchain));
  EXPECT_TRUE(use_callchain);
  uint64_t tp = fields.of(PERF_TYPE_TRACEPOINT).fields;
  EXPECT_EQ(tp & (kFieldIp | kFieldSym | kFieldSymoff | kFieldDso),
            kFieldIp | kFieldSym | kFieldSymoff | kFieldDso);
}

TEST(ScriptFilter, TimeRangesAsPerfParsesThem) {
  auto ranges = analysis::parse_time_ranges("10040.5,10041.000001");
  ASSERT_TRUE(ranges);
  ASSERT_EQ(ranges->size(), 1u);
  EXPECT_EQ((*ranges)[0].start, 10040500000000ull);
  EXPECT_EQ((*ranges)[0].end, 10041000001000ull);
  auto open_end = analysis::parse_time_ranges("5,");
  ASSERT_TRUE(open_end);
  EXPECT_EQ((*open_end)[0].end, 0u);
  EXPECT_FALSE(analysis::parse_time_ranges("abc,1"));
  EXPECT_FALSE(analysis::parse_time_ranges("2,1"));
  EXPECT_FALSE(analysis::parse_time_ranges("1.0123456789,"));

  analysis::ScriptFilter filter;
  filter.times = *ranges;
  EXPECT_TRUE(filter.skip_time(10040400000000ull));
  EXPECT_FALSE(filter.skip_time(10040600000000ull));
  EXPECT_FALSE(filter.skip_time(0));  // perf keeps samples without a time
}

TEST(ScriptFilter, CpusAndThreads) {
  analysis::ScriptFilter filter;
  filter.cpus = {false, true};
  EXPECT_TRUE(filter.skip_cpu(0));
  EXPECT_FALSE(filter.skip_cpu(1));
  EXPECT_TRUE(filter.skip_cpu(7));
  EXPECT_FALSE(filter.skip_cpu(UINT32_MAX));  // a record without a CPU
  filter.comms = analysis::split_list("demo,writes");
  EXPECT_FALSE(filter.skip_thread("writes", 1, 2));
  EXPECT_TRUE(filter.skip_thread("sh", 1, 2));
  auto ids = analysis::parse_id_list("12, 13", "--pid");
  ASSERT_TRUE(ids);
  EXPECT_EQ(*ids, (std::vector<int32_t>{12, 13}));
  EXPECT_FALSE(analysis::parse_id_list("12,x", "--pid"));
}

TEST(ScriptFilter, SymbolListSplitsAddressesFromNamesAsPerfDoes) {
  analysis::ScriptFilter filter;
  // Whole hex numbers (with or without 0x, blanks after) are addresses, even "add"; the rest,
  // "0x10x" and names, stay names.
  filter.set_symbol_list("main,add,0x4010 ,7f00,0x10x,hot_leaf");
  EXPECT_EQ(filter.symbols, (std::vector<std::string>{"main", "0x10x", "hot_leaf"}));
  EXPECT_EQ(filter.symbol_addresses, (std::vector<uint64_t>{0xadd, 0x4010, 0x7f00}));
  std::string_view main_name = "main", other = "work";
  EXPECT_FALSE(filter.skip_symbol(&main_name, 0x1000, true, 0x1004));
  EXPECT_TRUE(filter.skip_symbol(&other, 0x1000, true, 0x1004));
  EXPECT_FALSE(filter.skip_symbol(&other, 0x4000, true, 0x4010));  // an address listed
  EXPECT_TRUE(filter.skip_symbol(&other, 0x4000, true, 0x4011));
  filter.address_range = 2;
  EXPECT_FALSE(filter.skip_symbol(&other, 0x4000, true, 0x4011));  // within the range
  EXPECT_TRUE(filter.skip_symbol(nullptr, 0, false, 0x4010));      // no map: never an address
  filter.symbols.push_back("0x1000");
  EXPECT_FALSE(filter.skip_symbol(&other, 0x1000, true, 0x1004));  // a symbol's start, as text
}

TEST(ScriptFilter, DsosByShortOrLongName) {
  analysis::ScriptFilter filter;
  filter.dsos = analysis::split_comma_list("libc.so.6,/opt/app");
  EXPECT_FALSE(filter.skip_dso(true, "libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_FALSE(filter.skip_dso(true, "app", "/opt/app"));
  EXPECT_TRUE(filter.skip_dso(true, "demo", "/bin/demo"));
  EXPECT_TRUE(filter.skip_dso(false, "", ""));
}
