// offwaketime's chains from off-CPU blocks and their wakers, paired by time stamp.
#include "analysis/stacks/wakeup_chains.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sonde::analysis {
namespace {

struct Sample {
  std::vector<StackFrame> frames;  // leaf first
  StackSample sample;
};

Sample make(const char* event, const char* comm, std::vector<const char*> leaf_first, uint64_t time,
            uint64_t ns) {
  Sample made;
  for (const char* name : leaf_first) made.frames.push_back({.symbol = name, .dso = "[kernel.kallsyms]"});
  made.sample = {.comm = comm, .pid = 1, .tid = 1, .event = event, .period = ns, .time_ns = time};
  made.sample.frames = made.frames;
  return made;
}

TEST(WakeupChains, WakerLeafFirstAfterTheBlockedStack) {
  WakeupChains chains({});
  chains.add(make(kBlockedEvent, "reader", {"schedule", "read", "main"}, 10, 40).sample);
  chains.add(make(kWakerEvent, "writer", {"try_to_wake_up", "write", "hand_over"}, 10, 40).sample);
  EXPECT_TRUE(chains.has_wakers());
  EXPECT_EQ(chains.folded_text(), "reader;main;read;schedule;--;try_to_wake_up;write;hand_over;writer 40\n");
}

TEST(WakeupChains, TheInterruptNearestTheLeafDidTheWakeUp) {
  // A timer interrupt taken in the exit path of a rescheduling IPI: the timer woke the thread.
  WakeupChains chains({});
  chains.add(make(kWakerEvent, "busy",
                  {"try_to_wake_up", "hrtimer_wakeup", "asm_sysvec_apic_timer_interrupt",
                   "irqentry_exit_to_user_mode", "asm_sysvec_reschedule_ipi", "spin"},
                  7, 5)
                 .sample);
  chains.add(make(kBlockedEvent, "sleeper", {"schedule", "nanosleep"}, 7, 5).sample);
  EXPECT_EQ(chains.folded_text(),
            "sleeper;nanosleep;schedule;--;try_to_wake_up;hrtimer_wakeup;asm_sysvec_apic_timer_interrupt;["
            "interrupt] 5\n");
}

TEST(WakeupChains, ABlockWithoutItsWakerKeepsItsTime) {
  WakeupChains chains({});
  chains.add(make(kBlockedEvent, "reader", {"schedule", "read"}, 3, 8).sample);
  chains.add(make(kBlockedEvent, "reader", {"schedule", "read"}, 4, 2).sample);
  chains.add(make(kWakerEvent, "writer", {"write"}, 4, 2).sample);
  EXPECT_EQ(chains.folded_text(),
            "reader;read;schedule;--;[unknown] 8\nreader;read;schedule;--;write;writer 2\n");
}

TEST(WakeupChains, NoWakersWithoutTheWakerEvent) {
  WakeupChains chains({});
  chains.add(make(kBlockedEvent, "reader", {"schedule", "read"}, 3, 8).sample);
  EXPECT_FALSE(chains.has_wakers());
}

}  // namespace
}  // namespace sonde::analysis
