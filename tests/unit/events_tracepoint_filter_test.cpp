// --filter's bare words compared with string fields are quoted for the kernel; nothing else
// changes.
#include <gtest/gtest.h>

#include "events/tracepoint_filter.hpp"

using namespace sonde;

namespace {

const char* kSchedSwitchFormat =
    "name: sched_switch\n"
    "ID: 316\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
    "\tfield:__data_loc char[] name;\toffset:60;\tsize:4;\tsigned:0;\n"
    "\tfield:const char * ptr;\toffset:64;\tsize:8;\tsigned:0;\n"
    "\n"
    "print fmt: \"prev_comm=%s\", REC->prev_comm\n";

}  // namespace

TEST(TracepointFilter, StringFieldsOfAFormat) {
  auto fields = events::string_fields_of_format(kSchedSwitchFormat);
  EXPECT_EQ(fields, (std::unordered_set<std::string>{"prev_comm", "next_comm", "name", "ptr"}));
}

TEST(TracepointFilter, BareWordsComparedWithStringFieldsAreQuoted) {
  std::unordered_set<std::string> strings{"prev_comm", "next_comm", "comm"};
  EXPECT_EQ(events::quote_bare_string_operands("next_comm != perf && prev_comm != perf", strings),
            "next_comm != \"perf\" && prev_comm != \"perf\"");
  EXPECT_EQ(events::quote_bare_string_operands("comm != perf", strings), "comm != \"perf\"");
  EXPECT_EQ(events::quote_bare_string_operands("comm~kworker*", strings), "comm~\"kworker*\"");
  EXPECT_EQ(events::quote_bare_string_operands("(comm==a)||(comm == kworker/0:1)", strings),
            "(comm==\"a\")||(comm == \"kworker/0:1\")");
  // Already quoted, numeric fields, and words inside strings stay as written.
  EXPECT_EQ(events::quote_bare_string_operands("comm == \"perf\" && pid != 3", strings),
            "comm == \"perf\" && pid != 3");
  EXPECT_EQ(events::quote_bare_string_operands("comm == 'a b' || prev_pid == 0", strings),
            "comm == 'a b' || prev_pid == 0");
  EXPECT_EQ(events::quote_bare_string_operands("x_comm == y", strings), "x_comm == y");
  EXPECT_EQ(events::quote_bare_string_operands("comm", strings), "comm");
  EXPECT_EQ(events::quote_bare_string_operands("comm ==", strings), "comm ==");
}
