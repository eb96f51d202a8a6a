// The -e parser: the attrs a table of specs resolves to, against perf 6.1's choices, with a
// fake sysfs PMU tree for format bit packing and the real tracefs for tracepoints.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "events/catalogue.hpp"
#include "events/parse_events.hpp"
#include "events/syntax.hpp"
#include "fake_pmu_root.hpp"
#include "kernel/pmu_sysfs.hpp"
#include "kernel/tracefs.hpp"

using sonde::events::EventSpec;
using sonde::events::parse_events;

namespace {

std::vector<EventSpec> parse_ok(const std::string& spec) {
  std::vector<EventSpec> events;
  auto result = parse_events(spec, events);
  EXPECT_TRUE(result) << spec << ": " << (result ? "" : result.error().message);
  return events;
}

std::string parse_error(const std::string& spec) {
  std::vector<EventSpec> events;
  auto result = parse_events(spec, events);
  EXPECT_FALSE(result) << spec << " parsed";
  if (result) return {};
  EXPECT_EQ(result.error().kind, sonde::Error::Kind::usage);
  return result.error().message;
}

struct NamedCase {
  const char* spec;
  uint32_t type;
  uint64_t config;
  const char* name;
};

TEST(EventParser, HardwareSoftwareAndAliases) {
  const NamedCase cases[] = {
      {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles"},
      {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles"},
      {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions"},
      {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "cache-references"},
      {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses"},
      {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branches"},
      {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch-instructions"},
      {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses"},
      {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus-cycles"},
      {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
       "stalled-cycles-frontend"},
      {"idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
       "idle-cycles-frontend"},
      {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
       "stalled-cycles-backend"},
      {"idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
       "idle-cycles-backend"},
      {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles"},
      {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock"},
      {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock"},
      {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults"},
      {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "faults"},
      {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults"},
      {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults"},
      {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches"},
      {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "cs"},
      {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations"},
      {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "migrations"},
      {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment-faults"},
      {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "emulation-faults"},
      {"dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, "dummy"},
      {"bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, "bpf-output"},
      {"cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES, "cgroup-switches"},
      {"r1a8", PERF_TYPE_RAW, 0x1a8, "r1a8"},
      {"rFFFFFFFFFFFFFFFF", PERF_TYPE_RAW, ~uint64_t{0}, "rFFFFFFFFFFFFFFFF"},
      {"1:1", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "1:1"},
  };
  for (const auto& c : cases) {
    auto events = parse_ok(c.spec);
    ASSERT_EQ(events.size(), 1u) << c.spec;
    EXPECT_EQ(events[0].attr.type, c.type) << c.spec;
    EXPECT_EQ(events[0].attr.config, c.config) << c.spec;
    EXPECT_EQ(events[0].name, c.name) << c.spec;
    // perf's event_attr_init: the ABI size, host-only counting.
    EXPECT_EQ(events[0].attr.size, sizeof(perf_event_attr)) << c.spec;
    EXPECT_EQ(events[0].attr.exclude_guest, 1u) << c.spec;
    EXPECT_EQ(events[0].attr.exclude_user + events[0].attr.exclude_kernel + events[0].attr.exclude_hv, 0u);
    EXPECT_EQ(events[0].group_leader, 0);
    EXPECT_FALSE(events[0].in_group);
  }
}

TEST(EventParser, CacheEventsAndSpellings) {
  constexpr uint64_t kMiss = uint64_t{PERF_COUNT_HW_CACHE_RESULT_MISS} << 16;
  constexpr uint64_t kStore = uint64_t{PERF_COUNT_HW_CACHE_OP_WRITE} << 8;
  constexpr uint64_t kPrefetch = uint64_t{PERF_COUNT_HW_CACHE_OP_PREFETCH} << 8;
  const std::pair<const char*, uint64_t> cases[] = {
      {"L1-dcache-load-misses", PERF_COUNT_HW_CACHE_L1D | kMiss},
      {"L1-dcache-loads", PERF_COUNT_HW_CACHE_L1D},
      {"L1-dcache-stores", PERF_COUNT_HW_CACHE_L1D | kStore},
      {"L1-icache-load-misses", PERF_COUNT_HW_CACHE_L1I | kMiss},
      {"LLC-loads", PERF_COUNT_HW_CACHE_LL},
      {"LLC-misses", PERF_COUNT_HW_CACHE_LL | kMiss},
      {"LLC-prefetches", PERF_COUNT_HW_CACHE_LL | kPrefetch},
      {"dTLB-prefetch-misses", PERF_COUNT_HW_CACHE_DTLB | kPrefetch | kMiss},
      {"iTLB-load-misses", PERF_COUNT_HW_CACHE_ITLB | kMiss},
      {"branch-loads", PERF_COUNT_HW_CACHE_BPU},
      {"branch-load-misses", PERF_COUNT_HW_CACHE_BPU | kMiss},
      {"node-stores", PERF_COUNT_HW_CACHE_NODE | kStore},
      {"l1-d-read-miss", PERF_COUNT_HW_CACHE_L1D | kMiss},
      {"l1d-stores", PERF_COUNT_HW_CACHE_L1D | kStore},
      {"L1-data-write-miss", PERF_COUNT_HW_CACHE_L1D | kStore | kMiss},
      {"l1i-prefetches", PERF_COUNT_HW_CACHE_L1I | kPrefetch},
      {"L1-instruction-loads", PERF_COUNT_HW_CACHE_L1I},
      {"L2-refs", PERF_COUNT_HW_CACHE_LL},
      {"Data-TLB-access", PERF_COUNT_HW_CACHE_DTLB},
      {"d-tlb-speculative-read-miss", PERF_COUNT_HW_CACHE_DTLB | kPrefetch | kMiss},
      {"i-tlb-Reference", PERF_COUNT_HW_CACHE_ITLB},
      {"bpu-ops", PERF_COUNT_HW_CACHE_BPU},
      {"node-misses-speculative-load", PERF_COUNT_HW_CACHE_NODE | kPrefetch | kMiss},
      {"LLC", PERF_COUNT_HW_CACHE_LL},
  };
  for (const auto& [spec, config] : cases) {
    auto events = parse_ok(spec);
    ASSERT_EQ(events.size(), 1u) << spec;
    EXPECT_EQ(events[0].attr.type, PERF_TYPE_HW_CACHE) << spec;
    EXPECT_EQ(events[0].attr.config, config) << spec;
    EXPECT_EQ(events[0].name, spec);
  }
  // perf list's names parse back to themselves.
  for (const auto& name : sonde::events::cache_event_names()) {
    auto events = parse_ok(name);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].attr.type, PERF_TYPE_HW_CACHE) << name;
  }
  EXPECT_EQ(sonde::events::cache_event_names().size(), 32u);
}

TEST(EventParser, ModifiersFollowPerfsRules) {
  struct Case {
    const char* spec;
    bool eu, ek, eh, eG, eH;
    int precise;
  };
  // An event's own letters start guest and host from nothing: only u, p and H exclude the guest
  // (perf stat -vv -e cpu-clock:k shows no exclude_guest; cpu-clock:u does).
  const Case cases[] = {
      {"cycles:u", false, true, true, true, false, 0},
      {"cycles:k", true, false, true, false, false, 0},
      {"cycles:h", true, true, false, false, false, 0},
      {"cycles:uk", false, false, true, true, false, 0},
      {"cycles:ku", false, false, true, true, false, 0},
      {"cycles:ukh", false, false, false, true, false, 0},
      {"cycles:G", false, false, false, false, true, 0},
      {"cycles:H", false, false, false, true, false, 0},
      {"cycles:GH", false, false, false, false, false, 0},
      {"cycles:uG", false, true, true, false, true, 0},
      {"cycles:p", false, false, false, true, false, 1},
      {"cycles:pp", false, false, false, true, false, 2},
      {"instructions:kppp", true, false, true, true, false, 3},
      {"cpu-clock:Gp", false, false, false, false, true, 1},
  };
  for (const auto& c : cases) {
    auto events = parse_ok(c.spec);
    ASSERT_EQ(events.size(), 1u);
    const auto& attr = events[0].attr;
    EXPECT_EQ(attr.exclude_user, c.eu) << c.spec;
    EXPECT_EQ(attr.exclude_kernel, c.ek) << c.spec;
    EXPECT_EQ(attr.exclude_hv, c.eh) << c.spec;
    EXPECT_EQ(attr.exclude_guest, c.eG) << c.spec;
    EXPECT_EQ(attr.exclude_host, c.eH) << c.spec;
    EXPECT_EQ(attr.precise_ip, static_cast<unsigned>(c.precise)) << c.spec;
    EXPECT_EQ(events[0].name, c.spec);  // perf shows the modifier in the name
  }
  auto other = parse_ok("cpu-clock:IDSWPe");
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].attr.exclude_idle, 1u);
  EXPECT_EQ(other[0].attr.pinned, 1u);
  EXPECT_EQ(other[0].attr.exclusive, 1u);
  EXPECT_TRUE(other[0].sample_read);
  EXPECT_TRUE(other[0].weak_group);
  EXPECT_TRUE(other[0].precise_max);
  // A cache event keeps its name without the modifier, as in perf.
  auto cache = parse_ok("L1-dcache-load-misses:u");
  EXPECT_EQ(cache[0].name, "L1-dcache-load-misses");
  EXPECT_EQ(cache[0].attr.exclude_kernel, 1u);
}

TEST(EventParser, PerEventTerms) {
  auto events =
      parse_ok("cycles/period=100000,name=foo/,cpu-clock/freq=99/,task-clock/max-stack=12,call-graph=dwarf/");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].name, "foo");
  EXPECT_EQ(events[0].attr.sample_period, 100000u);
  EXPECT_EQ(events[0].attr.freq, 0u);
  EXPECT_TRUE(events[0].period_term);
  EXPECT_EQ(events[1].name, "cpu-clock/freq=99/");
  EXPECT_EQ(events[1].attr.sample_freq, 99u);
  EXPECT_EQ(events[1].attr.freq, 1u);
  EXPECT_TRUE(events[1].freq_term);
  EXPECT_EQ(events[2].max_stack, 12);
  EXPECT_EQ(events[2].call_graph, "dwarf");
  EXPECT_EQ(events[2].group_leader, 2);

  auto config = parse_ok("cpu-clock/config=5,config1=0x10,config2=7/u");
  ASSERT_EQ(config.size(), 1u);
  EXPECT_EQ(config[0].attr.config, 5u);
  EXPECT_EQ(config[0].attr.config1, 0x10u);
  EXPECT_EQ(config[0].attr.config2, 7u);
  EXPECT_EQ(config[0].attr.exclude_kernel, 1u);
  EXPECT_EQ(config[0].name, "cpu-clock/config=5,config1=0x10,config2=7/u");
  // perf reads "010" as ten, not as octal.
  EXPECT_EQ(parse_ok("cpu-clock/period=010/")[0].attr.sample_period, 10u);
  EXPECT_EQ(parse_ok("r1a8/name=x/")[0].name, "x");
  EXPECT_TRUE(parse_ok("cpu-clock/percore/")[0].percore);
  EXPECT_EQ(parse_ok("cpu-clock/no-inherit/")[0].inherit, 0);
  EXPECT_EQ(parse_ok("cpu-clock/name='quoted.name'/")[0].name, "quoted.name");
}

TEST(EventParser, BreakpointsAsPerf) {
  auto events = parse_ok("mem:0x1000,mem:0x2000/8:w,mem:4096:x:u");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].attr.type, PERF_TYPE_BREAKPOINT);
  EXPECT_EQ(events[0].attr.bp_addr, 0x1000u);
  EXPECT_EQ(events[0].attr.bp_type, 3u);  // read|write
  EXPECT_EQ(events[0].attr.bp_len, 4u);
  EXPECT_EQ(events[1].attr.bp_type, 2u);
  EXPECT_EQ(events[1].attr.bp_len, 8u);
  EXPECT_EQ(events[2].attr.bp_addr, 4096u);
  EXPECT_EQ(events[2].attr.bp_type, 4u);
  EXPECT_EQ(events[2].attr.bp_len, sizeof(long));
  EXPECT_EQ(events[2].attr.exclude_kernel, 1u);
  EXPECT_EQ(events[2].name, "mem:4096:x:u");
}

TEST(EventParser, GroupsAndLeaders) {
  auto events = parse_ok("cycles,{cpu-clock,task-clock:k}:u,cs");
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].group_leader, 0);
  EXPECT_FALSE(events[0].in_group);
  EXPECT_EQ(events[1].group_leader, 1);
  EXPECT_EQ(events[2].group_leader, 1);
  EXPECT_TRUE(events[1].in_group);
  EXPECT_TRUE(events[2].in_group);
  EXPECT_EQ(events[3].group_leader, 3);
  EXPECT_FALSE(events[3].in_group);
  // The group's :u applies to each member, combining with a member's own modifier as perf does.
  EXPECT_EQ(events[1].attr.exclude_kernel, 1u);
  EXPECT_EQ(events[1].attr.exclude_user, 0u);
  EXPECT_EQ(events[2].attr.exclude_kernel, 0u);
  EXPECT_EQ(events[2].attr.exclude_user, 0u);
  EXPECT_EQ(events[2].attr.exclude_hv, 1u);
  // perf keeps member names as written; the group modifier does not rename them.
  EXPECT_EQ(events[1].name, "cpu-clock");
  EXPECT_EQ(events[2].name, "task-clock:k");
  // :D pins the leader only.
  auto pinned = parse_ok("{cpu-clock,task-clock}:D");
  EXPECT_EQ(pinned[0].attr.pinned, 1u);
  EXPECT_EQ(pinned[1].attr.pinned, 0u);
  auto single = parse_ok("{cycles}");
  ASSERT_EQ(single.size(), 1u);
  EXPECT_TRUE(single[0].in_group);
}

TEST(EventParser, RepeatedOptionsAppendAndKeepIndexes) {
  std::vector<EventSpec> events;
  ASSERT_TRUE(parse_events("cycles", events));
  ASSERT_TRUE(parse_events("{cs,faults}", events));
  ASSERT_TRUE(parse_events(" cpu-clock , task-clock ", events));
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[1].group_leader, 1);
  EXPECT_EQ(events[2].group_leader, 1);
  EXPECT_EQ(events[3].group_leader, 3);
  EXPECT_EQ(events[3].name, "cpu-clock");
  EXPECT_EQ(events[4].group_leader, 4);
  // A failed parse appends nothing.
  EXPECT_FALSE(parse_events("cs,nosuchevent", events));
  EXPECT_EQ(events.size(), 5u);
}

TEST(EventParser, ErrorsPointAtTheOffendingCharacter) {
  std::string message = parse_error("cycles:xz");
  EXPECT_EQ(message,
            "event syntax error: 'cycles:xz'\n"
            "                            \\___ unknown modifier 'x' (valid: u k h G H I p P S D e W b)");
  struct Case {
    const char* spec;
    size_t column;  // of the caret within the spec
    const char* says;
  };
  const Case cases[] = {
      {"foo", 0, "unknown event 'foo'"},
      {"cycles:uu", 8, "given twice"},
      {"cycles:pppp", 10, "precise_ip is at most 3"},
      {"{cycles,{cs}}", 8, "nested"},
      {"{cycles,cs", 0, "no closing"},
      {"{}", 1, "empty group"},
      {"cycles,", 7, "expected an event name"},
      {"cycles}", 6, "without a group"},
      {"cpu-clock/bogus=1/", 10, "unknown term 'bogus'"},
      {"nopmu/event=1/", 0, "unknown PMU 'nopmu'"},
      {"r12345678901234567890", 1, "64 bits"},
      {"L1-icache-store", 10, "no store"},
      {"L1-dcache-load-foo", 15, "unknown cache operation"},
      {"cpu-clock/period=99999999999999999999999/", 17, "out of range"},
      {"", 0, "no event given"},
  };
  for (const auto& c : cases) {
    std::string error = parse_error(c.spec);
    auto newline = error.find('\n');
    ASSERT_NE(newline, std::string::npos) << error;
    EXPECT_EQ(error.substr(0, newline), std::string("event syntax error: '") + c.spec + "'");
    EXPECT_EQ(error.find('\n', newline + 1), std::string::npos) << "more than two lines: " << error;
    std::string second = error.substr(newline + 1);
    EXPECT_EQ(second.find("\\___"), std::string("event syntax error: '").size() + c.column) << error;
    EXPECT_NE(second.find(c.says), std::string::npos) << error;
  }
}

TEST(EventParser, LongSpecsAreCutAroundTheError) {
  std::string spec = std::string(200, 'a') + ",cycles:x";
  sonde::events::SyntaxError error{spec.size() - 1, "unknown modifier 'x'"};
  std::string text = sonde::events::format_syntax_error(spec, error);
  auto newline = text.find('\n');
  std::string first = text.substr(0, newline);
  std::string second = text.substr(newline + 1);
  EXPECT_LT(first.size(), 110u);
  EXPECT_EQ(first[second.find("\\___")], 'x') << text;
}

class FakePmuTest : public FakePmuRoot {
 protected:
  void SetUp() override {
    FakePmuRoot::SetUp();
    write("cpu/type", "4\n");
    write("cpu/format/event", "config:0-7\n");
    write("cpu/format/umask", "config:8-15\n");
    write("cpu/format/inv", "config:23\n");
    write("cpu/format/cmask", "config:24-31\n");
    write("cpu/format/split", "config:32-35,40-43\n");
    write("cpu/format/ldlat", "config1:0-15\n");
    write("cpu/format/wide", "config2:0-63\n");
    write("cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
    write("cpu/events/mem-loads.scale", "1\n");
    write("cpu/events/broken", "event=zz\n");
    write("uncore_x/type", "17\n");
    write("uncore_x/format/event", "config:0-7\n");
  }
};

TEST_F(FakePmuTest, FormatTermsPackIntoConfigBits) {
  auto events = parse_ok("cpu/event=0x0e,umask=0x01,inv,cmask=0x01/");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].attr.type, 4u);
  EXPECT_EQ(events[0].attr.config, 0x0e | (0x01 << 8) | (1 << 23) | (uint64_t{0x01} << 24));
  EXPECT_EQ(events[0].name, "cpu/event=0x0e,umask=0x01,inv,cmask=0x01/");
  // Multi-range fields take the value's low bits first.
  EXPECT_EQ(parse_ok("cpu/split=0xab/")[0].attr.config, (uint64_t{0xb} << 32) | (uint64_t{0xa} << 40));
  auto other = parse_ok("cpu/ldlat=7,wide=0xffffffffffffffff,config=0x100,event=1/k");
  EXPECT_EQ(other[0].attr.config1, 7u);
  EXPECT_EQ(other[0].attr.config2, ~uint64_t{0});
  EXPECT_EQ(other[0].attr.config, 0x101u);  // config= first, formats OR'ed in as perf does
  EXPECT_EQ(other[0].attr.exclude_user, 1u);
  EXPECT_EQ(parse_ok("uncore_x/event=0xff,name=u/")[0].attr.type, 17u);
  EXPECT_EQ(parse_ok("uncore_x/event=0xff,name=u/")[0].name, "u");
}

TEST_F(FakePmuTest, NamedEventsExpandToTheirTerms) {
  for (const char* spec : {"cpu/mem-loads/", "mem-loads"}) {
    auto events = parse_ok(spec);
    ASSERT_EQ(events.size(), 1u) << spec;
    EXPECT_EQ(events[0].attr.type, 4u);
    EXPECT_EQ(events[0].attr.config, 0xcdu | (1u << 8));
    EXPECT_EQ(events[0].attr.config1, 3u);
    EXPECT_EQ(events[0].name, spec);
  }
  auto pmu = sonde::kernel::read_pmu("cpu");
  ASSERT_TRUE(pmu);
  ASSERT_EQ(pmu->events.size(), 2u);  // broken and mem-loads; the .scale file is no event
  EXPECT_EQ(pmu->events[1].name, "mem-loads");
  EXPECT_EQ(pmu->format("split")->width(), 8);
}

TEST_F(FakePmuTest, BadTermsAreNamed) {
  EXPECT_NE(parse_error("cpu/event=0x100/").find("value too big for format 'event', maximum is 0xff"),
            std::string::npos);
  std::string unknown = parse_error("cpu/foo=1/");
  EXPECT_NE(
      unknown.find(
          "unknown term 'foo' for PMU 'cpu' (valid terms: cmask,event,inv,ldlat,split,umask,wide,config"),
      std::string::npos)
      << unknown;
  EXPECT_NE(parse_error("cpu/broken/").find("needs a number, not 'zz'"), std::string::npos);
  EXPECT_NE(parse_error("cpu/event=0x1").find("missing '/'"), std::string::npos);
  EXPECT_NE(parse_error("cpu/event=x/").find("needs a number"), std::string::npos);
  EXPECT_NE(parse_error("cpu/mem-loads/:u").find("without ':'"), std::string::npos);
}

TEST(PmuSysfs, FormatsParse) {
  auto field = sonde::kernel::parse_pmu_format("umask", "config:8-15,24-31\n");
  ASSERT_TRUE(field);
  EXPECT_EQ(field->config_index, 0);
  EXPECT_EQ(field->width(), 16);
  uint64_t bits = 0;
  EXPECT_TRUE(field->pack(0x1234, bits));
  EXPECT_EQ(bits, (uint64_t{0x34} << 8) | (uint64_t{0x12} << 24));
  EXPECT_FALSE(field->pack(0x10000, bits));
  EXPECT_TRUE(sonde::kernel::parse_pmu_format("x", "config1:0"));
  EXPECT_EQ(sonde::kernel::parse_pmu_format("x", "config2:0-63")->config_index, 2);
  EXPECT_FALSE(sonde::kernel::parse_pmu_format("x", "config3:0-7"));
  EXPECT_FALSE(sonde::kernel::parse_pmu_format("x", "config:9-8"));
  EXPECT_FALSE(sonde::kernel::parse_pmu_format("x", "config:0-64"));
}

TEST(PmuSysfs, RealMsrPmu) {
  if (!sonde::kernel::pmu_exists("msr")) GTEST_SKIP() << "no msr PMU on this machine";
  auto pmu = sonde::kernel::read_pmu("msr");
  ASSERT_TRUE(pmu) << pmu.error().message;
  ASSERT_NE(pmu->event("tsc"), nullptr);
  auto events = parse_ok("msr/tsc/");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].attr.type, pmu->type);
  EXPECT_EQ(events[0].attr.config, 0u);
  EXPECT_EQ(events[0].name, "msr/tsc/");
}

TEST(EventParser, TracepointsFromTracefs) {
  auto root = sonde::kernel::tracefs_root();
  if (!root) GTEST_SKIP() << "no tracefs: " << root.error().message;
  auto id = sonde::kernel::tracepoint_id("sched", "sched_switch");
  ASSERT_TRUE(id);
  auto events = parse_ok("sched:sched_switch");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].attr.type, PERF_TYPE_TRACEPOINT);
  EXPECT_EQ(events[0].attr.config, *id);
  EXPECT_EQ(events[0].attr.sample_period, 1u);  // perf samples every hit
  EXPECT_EQ(events[0].name, "sched:sched_switch");
  EXPECT_EQ(events[0].tracepoint_system, "sched");
  EXPECT_EQ(events[0].tracepoint_name, "sched_switch");
  EXPECT_TRUE(events[0].is_tracepoint());

  auto user = parse_ok("sched:sched_switch:u");
  EXPECT_EQ(user[0].name, "sched:sched_switch");  // perf keeps the tracepoint's own name
  EXPECT_EQ(user[0].attr.exclude_kernel, 1u);

  auto names = sonde::kernel::tracepoint_names("sched");
  ASSERT_TRUE(names);
  auto all = parse_ok("sched:*");
  ASSERT_EQ(all.size(), names->size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].name, "sched:" + (*names)[i]);
    EXPECT_EQ(all[i].group_leader, static_cast<int>(i));
  }
  auto across = parse_ok("*:sched_switch");
  ASSERT_EQ(across.size(), 1u);
  EXPECT_EQ(across[0].attr.config, *id);

  auto grouped = parse_ok("{sched:sched_sw*,cs}");
  ASSERT_GE(grouped.size(), 2u);
  for (const auto& event : grouped) EXPECT_EQ(event.group_leader, 0);

  EXPECT_NE(parse_error("sched:no_such_tracepoint").find("unknown tracepoint 'sched:no_such_tracepoint'"),
            std::string::npos);
  EXPECT_NE(parse_error("nosuchsys:*").find("no tracepoint matches"), std::string::npos);
  EXPECT_NE(parse_error("sched:sched_switch/period=1/").find("take no terms"), std::string::npos);
}

}  // namespace
