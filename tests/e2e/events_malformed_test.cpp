// Malformed -e specs: each gets perf's two-line "event syntax error" on stderr and exit code
// 129, never a crash. Run through `sonde list --parse`, the parser stat and record use.
#include <gtest/gtest.h>

#include <string>

#include "run.hpp"

using namespace sonde::test;

namespace {

const char* const kMalformed[] = {
    // unknown names
    "foo",
    "cycles-t",
    "sched_switch",
    "rXYZ",
    "r",
    "cyclesx",
    "duration_time",
    // bad modifiers
    "cycles:xz",
    "cycles:uu",
    "cycles:pppp",
    "cycles:",
    "cycles:u:k",
    "cpu-clock:1",
    "{cycles}:z",
    "msr/tsc/:u",
    // groups: unbalanced, nested, empty
    "{cycles,instructions",
    "{cycles,{instructions}}",
    "{}",
    "cycles}",
    "{cycles}}",
    "{cycles,}",
    "{,cycles}",
    "{{cycles}}",
    // empty events and list junk
    "",
    ",cycles",
    "cycles,",
    "cycles,,instructions",
    ":u",
    "cycles junk",
    "cycles;",
    "cycles:u instructions",
    // PMU terms
    "msr/foo=1/",
    "msr/tsc",
    "msr/event=0x100000000000000000/",
    "power/event=0x1ff/",
    "cpu-clock/bogus=1/",
    "cpu-clock/period=/",
    "cpu-clock/period=abc/",
    "cpu-clock/=5/",
    "cpu-clock/period/",
    "cpu-clock/name='x/",
    "cpu-clock/call-graph=bogus/",
    "cycles/period=99999999999999999999999/",
    "cpu-clock/period=1,/",
    // unknown PMU
    "nopmu/event=1/",
    "cpu/event=0x3c/",
    // tracepoints
    "sched:nope",
    "nope:*",
    "syscalls:sys_enter_nosuch*",
    "sched:",
    "sched:sched_switch/period=1/",
    "sched:sched_switch:q",
    // raw and numbers
    "r12345678901234567890",
    "r1a8x",
    "99999999999:1",
    "1:",
    "mem:",
    "mem:0x10/3",
    "mem:zz",
    // cache events
    "L1-dcache-load-foo",
    "L1-icache-store",
    "LLC-",
    "iTLB-prefetches",
    "L1-dcache-load-store-misses",
};

TEST(EventsMalformed, EveryBadSpecGetsPerfsTwoLineError) {
  ASSERT_GE(std::size(kMalformed), 30u);
  for (const char* spec : kMalformed) {
    auto result = run(sonde_bin() + " list --parse " + shell_quote(spec));
    SCOPED_TRACE(std::string("spec: [") + spec + "]");
    EXPECT_EQ(result.exit_code, 129) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
    auto err_lines = lines(result.err);
    ASSERT_EQ(err_lines.size(), 2u) << result.err;
    EXPECT_EQ(err_lines[0], std::string("event syntax error: '") + spec + "'");
    size_t caret = err_lines[1].find("\\___ ");
    ASSERT_NE(caret, std::string::npos) << result.err;
    EXPECT_EQ(err_lines[1].find_first_not_of(' '), caret) << "only spaces before the caret";
    EXPECT_LE(caret, err_lines[0].size()) << "the caret points inside the spec or just past it";
    EXPECT_GT(err_lines[1].size(), caret + 6) << "a message follows the caret";
  }
}

}  // namespace
