// perf record -k: clock names as perf spells them.
#include <gtest/gtest.h>

#include <ctime>

#include "kernel/perf_event.hpp"

using sonde::kernel::parse_clockid;

TEST(Clockid, PerfsNamesAndNumbers) {
  EXPECT_EQ(parse_clockid("monotonic"), CLOCK_MONOTONIC);
  EXPECT_EQ(parse_clockid("mono"), CLOCK_MONOTONIC);
  EXPECT_EQ(parse_clockid("CLOCK_MONOTONIC_RAW"), CLOCK_MONOTONIC_RAW);
  EXPECT_EQ(parse_clockid("raw"), CLOCK_MONOTONIC_RAW);
  EXPECT_EQ(parse_clockid("real"), CLOCK_REALTIME);
  EXPECT_EQ(parse_clockid("boottime"), CLOCK_BOOTTIME);
  EXPECT_EQ(parse_clockid("tai"), CLOCK_TAI);
  EXPECT_EQ(parse_clockid("7"), 7);
  EXPECT_FALSE(parse_clockid("sundial"));
  EXPECT_FALSE(parse_clockid("99"));
}
