// perf-probe(1)'s definition grammar, the event names perf makes, and its -F filters.
#include "probe/probe_spec.hpp"

#include <gtest/gtest.h>

#include "probe/event_names.hpp"
#include "probe/name_filter.hpp"

namespace sonde::probe {
namespace {

TEST(ProbeSpec, FunctionWithEverySuffix) {
  auto spec = parse_probe_spec("grp:ev=func@src/a.c:12 a b");
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->group, "grp");
  EXPECT_EQ(spec->event, "ev");
  EXPECT_EQ(spec->point.function, "func");
  EXPECT_EQ(spec->point.file, "src/a.c");
  EXPECT_EQ(spec->point.line, 12u);
  ASSERT_EQ(spec->args.size(), 2u);
  EXPECT_EQ(spec->args[1].var, "b");

  auto ret = parse_probe_spec("f%return $retval");
  ASSERT_TRUE(ret);
  EXPECT_TRUE(ret->point.retprobe);
  auto offset = parse_probe_spec("f+0x10");
  ASSERT_TRUE(offset);
  EXPECT_EQ(offset->point.offset, 16u);
  auto lazy = parse_probe_spec("f;total+=*");
  ASSERT_TRUE(lazy);
  EXPECT_EQ(lazy->point.lazy_line, "total+=*");
}

TEST(ProbeSpec, FileLinesAddressesAndMethods) {
  auto file_line = parse_probe_spec("a.c:34");
  ASSERT_TRUE(file_line);
  EXPECT_EQ(file_line->point.file, "a.c");
  EXPECT_TRUE(file_line->point.function.empty());
  auto address = parse_probe_spec("0x1300");
  ASSERT_TRUE(address);
  EXPECT_EQ(address->point.address, 0x1300u);
  auto method = parse_probe_spec("Counter::bump:2");
  ASSERT_TRUE(method);
  EXPECT_EQ(method->point.function, "Counter::bump");
  EXPECT_EQ(method->point.line, 2u);
  auto sdt = parse_probe_spec("%sdt_python:function__entry");
  ASSERT_TRUE(sdt);
  EXPECT_TRUE(sdt->sdt);
  EXPECT_EQ(sdt->group, "sdt_python");
  EXPECT_EQ(sdt->event, "function__entry");
}

TEST(ProbeSpec, ArgumentsWithMembersIndicesAndTypes) {
  auto arg = parse_probe_arg("p->next->x");
  ASSERT_TRUE(arg);
  EXPECT_EQ(arg->var, "p");
  ASSERT_EQ(arg->fields.size(), 2u);
  EXPECT_TRUE(arg->fields[0].deref);
  EXPECT_EQ(arg->name, "x");  // perf names it after the last member
  auto indexed = parse_probe_arg("len=buf[3].size:u32");
  ASSERT_TRUE(indexed);
  EXPECT_EQ(indexed->name, "len");
  EXPECT_EQ(indexed->type, "u32");
  ASSERT_EQ(indexed->fields.size(), 2u);
  EXPECT_TRUE(indexed->fields[0].is_index);
  EXPECT_EQ(indexed->fields[0].index, 3);
  auto reg = parse_probe_arg("+8(%di):string");
  ASSERT_TRUE(reg);
  EXPECT_EQ(reg->var, "+8(%di)");
  EXPECT_EQ(reg->type, "string");
}

TEST(ProbeSpec, BadDefinitionsSayWhatIsWrong) {
  EXPECT_EQ(parse_probe_spec("f:12x").error().message,
            "bad probe point 'f:12x': there is a non-digit character in the line number");
  EXPECT_EQ(parse_probe_spec("f:3+4").error().message,
            "bad probe point 'f:3+4': an offset can't be used with a line number");
  EXPECT_EQ(parse_probe_spec("f:3%return").error().message,
            "bad probe point 'f:3%return': an offset, line or lazy pattern can't be used with %return");
  EXPECT_EQ(parse_probe_spec("f@a.c@b.c").error().message,
            "bad probe point 'f@a.c@b.c': SRC@SRC is not allowed");
  EXPECT_EQ(parse_probe_spec("my-ev=f").error().message,
            "'my-ev' is bad for an event name: it must be a C identifier");
  EXPECT_EQ(parse_probe_arg("buf[x]").error().message,
            "bad probe argument 'buf[x]': an array index must be a number");
}

TEST(ProbeSpec, LineRanges) {
  auto relative = parse_line_range("sum_to:2-5");
  ASSERT_TRUE(relative);
  EXPECT_EQ(relative->function, "sum_to");
  EXPECT_EQ(relative->start, 2u);
  EXPECT_EQ(relative->end, 5u);
  auto counted = parse_line_range("a.c:50+3");
  ASSERT_TRUE(counted);
  EXPECT_EQ(counted->file, "a.c");
  EXPECT_EQ(counted->end, 52u);
  auto method = parse_line_range("geo::area:1-2");
  ASSERT_TRUE(method);
  EXPECT_EQ(method->function, "geo::area");
  EXPECT_EQ(method->start, 1u);
  EXPECT_EQ(method->end, 2u);
  auto open_ended = parse_line_range("f@a.c:4");
  ASSERT_TRUE(open_ended);
  EXPECT_EQ(open_ended->file, "a.c");
  EXPECT_FALSE(open_ended->has_end);
}

TEST(EventNames, PerfsGroupsAndSuffixes) {
  EXPECT_EQ(default_user_group("/usr/lib/x86_64-linux-gnu/libc.so.6"), "probe_libc");
  EXPECT_EQ(default_user_group("/tmp/probe_targets"), "probe_probe_targets");
  EXPECT_EQ(default_user_group("/tmp/my-prog"), "probe_my");
  EXPECT_EQ(base_event_name("foo.isra.0"), "foo");
  EXPECT_EQ(base_event_name("Counter::bump"), "Counter__bump");
  EventNamer namer({"probe_x:f"});
  EXPECT_EQ(namer.claim("probe_x", "f", false, false).error().message,
            "event \"probe_x:f\" already exists; remove it with 'sonde probe -d probe_x:f' or add a "
            "duplicate with -f");
  EXPECT_EQ(*namer.claim("probe_x", "f", false, true), "f_1");
  EXPECT_EQ(*namer.claim("probe_x", "f", true, false), "f__return");
  EXPECT_EQ(*namer.claim("probe_x", "f", true, true), "f_2");  // perf: a suffixed return probe loses __return
}

TEST(NameFilter, PerfsFilterExpressions) {
  auto filter = NameFilter::parse("!_* & !*@plt");
  ASSERT_TRUE(filter);
  EXPECT_TRUE(filter->matches("main"));
  EXPECT_FALSE(filter->matches("_start"));
  EXPECT_FALSE(filter->matches("malloc@plt"));
  auto grouped = NameFilter::parse("(a* | b*) & !*x");
  ASSERT_TRUE(grouped);
  EXPECT_TRUE(grouped->matches("bar"));
  EXPECT_FALSE(grouped->matches("bax"));
  EXPECT_FALSE(grouped->matches("car"));
  grouped->or_with(*NameFilter::parse("car"));
  EXPECT_TRUE(grouped->matches("car"));
  EXPECT_FALSE(NameFilter::parse("a & (b").has_value());
}

}  // namespace
}  // namespace sonde::probe
