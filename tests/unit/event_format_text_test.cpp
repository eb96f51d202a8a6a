// Which event formats libtraceevent is given: every format the running kernel has, none of the
// damaged ones fuzzing found it crashing on.
#include "format/event_format_text.hpp"

#include <gtest/gtest.h>

#include <string>

#include "kernel/tracefs.hpp"

using sonde::tracedat::event_format_is_parseable;
using namespace std::string_literals;

namespace {

std::string with_print(std::string_view print) {
  return std::string(
             "name: x\nID: 7\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
             "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: ") +
         std::string(print) + "\n";
}

}  // namespace

TEST(EventFormatText, EveryFormatOfThisKernelIsParseable) {
  auto systems = sonde::kernel::tracepoint_systems();
  if (!systems) GTEST_SKIP() << systems.error().message;
  size_t checked = 0;
  for (const std::string& system : *systems) {
    auto names = sonde::kernel::tracepoint_names(system);
    ASSERT_TRUE(names) << names.error().message;
    for (const std::string& name : *names) {
      auto format = sonde::kernel::tracepoint_format(system, name);
      if (!format) continue;  // some events have none
      EXPECT_TRUE(event_format_is_parseable(*format)) << system << ":" << name << "\n" << *format;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100u);
}

TEST(EventFormatText, WellFormedShapesAreParseable) {
  EXPECT_TRUE(event_format_is_parseable(with_print("\"%08x %d\", REC->a / 10, REC->b % 3")));
  EXPECT_TRUE(event_format_is_parseable(with_print("\"a \\\" / 0 %0d\", REC->a, 0x0")));
  EXPECT_TRUE(event_format_is_parseable(with_print("\"%s\", REC->a ? \")\" : '(' ? \"x\" : \"\"")));
  EXPECT_TRUE(event_format_is_parseable(
      with_print("\"%s\", __print_flags(REC->a, \"|\", { 1, \"A\" }, { 2, \"B\" })")));
  // Old kernels have no "signed:", and a format may have no print fmt.
  EXPECT_TRUE(event_format_is_parseable("name: x\nID: 1\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\n"));
}

TEST(EventFormatText, DamagedFormatsAreNot) {
  // libtraceevent's NULL strcmp (fuzzing): NUL bytes inside a field's declaration.
  EXPECT_FALSE(
      event_format_is_parseable("name: branch\nID: 9\nformat:\n\tfield:char func[\0\0\0"
                                "31];\toffset:12;\tsize:31;\tsigned:0;\n\n"
                                "print fmt: \"%s\", REC->func\n"s));
  // Its SIGFPE: a division by a literal zero, here from a format run on into the saved cmdlines.
  EXPECT_FALSE(event_format_is_parseable(with_print("\"%d\", (void *)RECs / 0")));
  EXPECT_FALSE(event_format_is_parseable(with_print("\"%d\", REC->a % 0")));
  EXPECT_FALSE(
      event_format_is_parseable(with_print("\"%u:%s\", REC->line, REC->constant ? \"")));  // cut in a string
  EXPECT_FALSE(event_format_is_parseable(with_print("\"%d\", (REC->a")));                  // unclosed
  EXPECT_FALSE(event_format_is_parseable(with_print("\"%d\", REC->a)]")));
  EXPECT_FALSE(event_format_is_parseable(with_print("REC->a")));  // no format string
  // Its SEGV: a character C has no use for among the arguments.
  EXPECT_FALSE(event_format_is_parseable(with_print("\"%p %p\", (void *)REC->a[6]$ (void *)REC->a[7]")));
  EXPECT_FALSE(event_format_is_parseable(with_print("\"%d\", REC->a\n18 migration/0\n13586 ls")));
  EXPECT_FALSE(event_format_is_parseable("name: x\nID: 1x\nformat:\n"));
  EXPECT_FALSE(event_format_is_parseable("nam: x\nID: 1\nformat:\n"));
  EXPECT_FALSE(event_format_is_parseable("name: x\nID: 1\nformat:\n\tfield:int a;\tof:tefs2;\tsize:4;\n"));
  EXPECT_FALSE(event_format_is_parseable("name: x\nID: 1\nformat:\n\tfield:;\toffset:8;\tsize:4;\n"));
  EXPECT_FALSE(
      event_format_is_parseable("name: x\nID: 1\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\n\xff\n"));
}
