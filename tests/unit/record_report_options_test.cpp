// The small grammars of record's and report's perf options: register lists, branch filters,
// --synth, --time-quantum, and the --switch-on/--switch-off state machine.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <string>
#include <vector>

#include "analysis/report/sort_keys.hpp"
#include "analysis/script/event_switch.hpp"
#include "capture/record_sideband.hpp"
#include "events/branch_filter.hpp"
#include "format/perf_regs.hpp"

namespace sonde {
namespace {

TEST(RegisterList, NamesAreCaseInsensitiveBitsOfPerfsMask) {
  EXPECT_EQ(format::parse_register_list("").value(), format::kX86SampleRegs);
  EXPECT_EQ(format::parse_register_list("ax,R8").value(), (1ull << 0) | (1ull << 16));
  EXPECT_EQ(format::parse_register_list("IP,sp,flags").value(), (1ull << 8) | (1ull << 7) | (1ull << 9));
  // The segment registers perf leaves out of its mask are not offered either.
  EXPECT_FALSE(format::parse_register_list("DS").has_value());
  auto unknown = format::parse_register_list("AX,XX");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message.find("\"XX\""), std::string::npos);
  EXPECT_EQ(format::available_registers_text(),
            "available registers: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8 R9 R10 R11 R12 R13 R14 R15 ");
}

TEST(BranchFilter, PrivilegeLevelsAloneMeanAnyBranch) {
  EXPECT_EQ(events::parse_branch_filter("any_call,u").value(),
            uint64_t{PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER});
  EXPECT_EQ(events::parse_branch_filter("k").value(),
            uint64_t{PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_ANY});
  EXPECT_EQ(events::parse_branch_filter("stack").value(), uint64_t{PERF_SAMPLE_BRANCH_CALL_STACK});
  EXPECT_FALSE(events::parse_branch_filter("any,calls").has_value());
}

TEST(SidebandSynth, PerfsWords) {
  auto all = capture::parse_sideband_synth("all").value();
  EXPECT_TRUE(all.tasks && all.mmaps && all.cgroups);
  auto none = capture::parse_sideband_synth("no").value();
  EXPECT_FALSE(none.tasks || none.mmaps || none.cgroups);
  auto task = capture::parse_sideband_synth("task").value();
  EXPECT_TRUE(task.tasks && !task.mmaps && !task.cgroups);
  auto mmap = capture::parse_sideband_synth("mmap,cgroup").value();  // maps need their tasks
  EXPECT_TRUE(mmap.tasks && mmap.mmaps && mmap.cgroups);
  EXPECT_FALSE(capture::parse_sideband_synth("tasks").has_value());
}

TEST(TimeQuantum, UnitsAndNanosecondsWithoutOne) {
  EXPECT_EQ(analysis::parse_time_quantum("100ms").value(), 100'000'000u);
  EXPECT_EQ(analysis::parse_time_quantum("2s").value(), 2'000'000'000u);
  EXPECT_EQ(analysis::parse_time_quantum("5us").value(), 5'000u);
  EXPECT_EQ(analysis::parse_time_quantum("7").value(), 7u);
  EXPECT_FALSE(analysis::parse_time_quantum("0ms").has_value());
  EXPECT_FALSE(analysis::parse_time_quantum("ms").has_value());
  EXPECT_FALSE(analysis::parse_time_quantum("soon").has_value());
}

TEST(EventSwitch, OnAndOffAsPerfsEvswitch) {
  const std::vector<std::string> names = {"cpu-clock", "page-faults", "sched:sched_switch"};
  // Events: 0 cpu-clock, 1 page-faults (on), 2 sched_switch (off).
  auto made = analysis::EventSwitch::make("page-faults", "sched:sched_switch", false, names);
  ASSERT_TRUE(made.has_value());
  analysis::EventSwitch on_off = *made;
  std::vector<bool> kept;
  for (size_t event : {0, 1, 0, 2, 0, 1, 0}) kept.push_back(!on_off.discard(event));
  EXPECT_EQ(kept, (std::vector<bool>{false, false, true, false, false, false, true}));

  auto shown = analysis::EventSwitch::make("page-faults", "sched:sched_switch", true, names).value();
  kept.clear();
  for (size_t event : {0, 1, 0, 2, 0}) kept.push_back(!shown.discard(event));
  EXPECT_EQ(kept, (std::vector<bool>{false, true, true, true, false}));

  // perf's --switch-off alone only drops the "off" samples: nothing switches the samples back
  // off without an "on" event.
  auto off_only = analysis::EventSwitch::make("", "page-faults", false, names).value();
  kept.clear();
  for (size_t event : {0, 1, 0}) kept.push_back(!off_only.discard(event));
  EXPECT_EQ(kept, (std::vector<bool>{true, false, true}));

  EXPECT_FALSE(analysis::EventSwitch::make("cycles", "", false, names).has_value());
}

}  // namespace
}  // namespace sonde
