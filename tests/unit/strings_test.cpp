#include "base/strings.hpp"

#include <gtest/gtest.h>

#include "kernel/cpus.hpp"

using namespace sonde;

TEST(Strings, SplitKeepsEmptyFields) {
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split("", ','), (std::vector<std::string>{""}));
}

TEST(Strings, ParseUintRejectsJunk) {
  EXPECT_EQ(parse_uint("0x1f"), 31u);
  EXPECT_EQ(parse_uint("12", 10), 12u);
  EXPECT_FALSE(parse_uint("12z"));
  EXPECT_FALSE(parse_uint("-1"));
  EXPECT_FALSE(parse_uint(""));
  EXPECT_FALSE(parse_uint("99999999999999999999999"));
}

TEST(Strings, GlobMatchesLikePerf) {
  EXPECT_TRUE(glob_match("sys_enter_*", "sys_enter_write"));
  EXPECT_FALSE(glob_match("sys_enter_*", "sys_exit_write"));
  EXPECT_TRUE(glob_match("sched_[sw]*", "sched_switch"));
}

TEST(Cpus, ParsesRangesAndLists) {
  auto cpus = kernel::parse_cpu_list("0-2,5,1");
  ASSERT_TRUE(cpus);
  EXPECT_EQ(*cpus, (std::vector<int>{0, 1, 2, 5}));
  EXPECT_FALSE(kernel::parse_cpu_list("3-1"));
  EXPECT_FALSE(kernel::parse_cpu_list("a"));
  EXPECT_FALSE(kernel::parse_cpu_list(""));
}

TEST(MessageExcerpt, KeepsPrintableTextAndEscapesTheRest) {
  EXPECT_EQ(message_excerpt("6"), "6");
  EXPECT_EQ(message_excerpt(std::string_view("a\0b\xff\n", 5)), "a\\x00b\\xff\\x0a");
  EXPECT_EQ(message_excerpt(std::string(200, 'x'), 8), "xxxxxxxx...");
}

TEST(Strings, ParseSizeTakesPerfSuffixes) {
  EXPECT_EQ(sonde::parse_size("100"), 100u);
  EXPECT_EQ(sonde::parse_size("100B"), 100u);
  EXPECT_EQ(sonde::parse_size("64K"), 64u * 1024);
  EXPECT_EQ(sonde::parse_size("3m"), 3u * 1024 * 1024);
  EXPECT_EQ(sonde::parse_size("2G"), 2ull << 30);
  EXPECT_FALSE(sonde::parse_size("lots"));
  EXPECT_FALSE(sonde::parse_size("K"));
  EXPECT_FALSE(sonde::parse_size("99999999999999999999G"));
}
