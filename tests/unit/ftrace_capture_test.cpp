// The pieces of the ftrace capture that need no kernel: per-CPU stats parsing, -e selection
// against a catalogue, and counting the events of a file of ring-buffer pages.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

#include "ftrace/buffer_stats.hpp"
#include "ftrace/event_selection.hpp"
#include "ftrace/page_events.hpp"
#include "temp_dir.hpp"

using namespace sonde;
using namespace sonde::ftrace;

TEST(FtraceStats, ParsesTheKernelsStatsFile) {
  auto stats = parse_cpu_stats(
      "entries: 12\noverrun: 3\ncommit overrun: 1\nbytes: 480\noldest event ts:  9629.977000\n"
      "now ts:  9630.000001\ndropped events: 2\nread events: 40\n");
  EXPECT_EQ(stats.entries, 12u);
  EXPECT_EQ(stats.overrun, 3u);
  EXPECT_EQ(stats.commit_overrun, 1u);
  EXPECT_EQ(stats.bytes, 480u);
  EXPECT_EQ(stats.dropped_events, 2u);
  EXPECT_EQ(stats.read_events, 40u);
  EXPECT_EQ(stats.oldest_event_ts, "9629.977000");
  EXPECT_EQ(stats.now_ts, "9630.000001");
  EXPECT_EQ(stats.lost(), 6u);
  EXPECT_EQ(parse_cpu_stats("garbage\n").lost(), 0u);
}

namespace {
EventCatalogue small_catalogue() {
  return {{{"sched", {"sched_switch", "sched_wakeup", "sched_process_fork"}},
           {"syscalls", {"sys_enter_read", "sys_enter_write", "sys_exit_write"}},
           {"irq", {"irq_handler_entry"}}}};
}
}  // namespace

TEST(FtraceSelection, SubsystemsEventsAndGlobs) {
  auto catalogue = small_catalogue();
  auto whole = select_events("sched", catalogue);
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->whole_systems, std::vector<std::string>{"sched"});
  EXPECT_EQ(whole->events.size(), 3u);

  auto one = select_events("syscalls:sys_enter_write", catalogue);
  ASSERT_TRUE(one);
  EXPECT_TRUE(one->whole_systems.empty());
  EXPECT_EQ(one->events, (std::vector<TraceEvent>{{"syscalls", "sys_enter_write"}}));

  auto glob = select_events("syscalls:sys_*_write", catalogue);
  ASSERT_TRUE(glob);
  EXPECT_EQ(glob->events,
            (std::vector<TraceEvent>{{"syscalls", "sys_enter_write"}, {"syscalls", "sys_exit_write"}}));

  auto star = select_events("irq:*", catalogue);
  ASSERT_TRUE(star);
  EXPECT_EQ(star->whole_systems, std::vector<std::string>{"irq"});

  auto bare = select_events("sched_wakeup", catalogue);
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->events, (std::vector<TraceEvent>{{"sched", "sched_wakeup"}}));

  auto none = select_events("sched:nothing_like_this", catalogue);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no trace event matches 'sched:nothing_like_this'"), std::string::npos);
}

namespace {
// A ring-buffer page as trace_pipe_raw hands it over: u64 timestamp, u64 commit (bytes of event
// data, flag bits above), then events with a 32-bit header (type_len in the low 5 bits, time delta
// above) and type_len * 4 bytes of payload.
std::vector<char> page(const std::vector<uint32_t>& type_lens, uint64_t flags = 0) {
  std::vector<char> bytes(4096, 0);
  uint64_t ts = 1000;
  std::memcpy(bytes.data(), &ts, 8);
  size_t at = 16;
  for (uint32_t type_len : type_lens) {
    uint32_t header = type_len | (5u << 5);
    std::memcpy(bytes.data() + at, &header, 4);
    at += 4 + type_len * 4;
  }
  uint64_t commit = (at - 16) | flags;
  std::memcpy(bytes.data() + 8, &commit, 8);
  return bytes;
}
}  // namespace

TEST(FtracePageEvents, CountsEventsPagesAndMissedEvents) {
  std::string path = test::unit_temp_dir() + "/pages.cpu0";
  {
    std::ofstream out(path, std::ios::binary);
    for (const auto& p : {page({2, 1, 3}), page({4}), page({})})
      out.write(p.data(), static_cast<std::streamsize>(p.size()));
    // Missed events, count unknown: bit 31 of commit.
    auto missed = page({1, 1}, 1ull << 31);
    out.write(missed.data(), static_cast<std::streamsize>(missed.size()));
  }
  auto counts = count_page_events(path, 4096);
  ASSERT_TRUE(counts) << counts.error().message;
  EXPECT_EQ(counts->pages, 4u);
  EXPECT_EQ(counts->events, 6u);
  EXPECT_TRUE(counts->missed_uncounted);

  auto absent = count_page_events(test::unit_temp_dir() + "/absent", 4096);
  EXPECT_FALSE(absent);
}
