// trace.dat writer, reader and report on a synthetic trace: hand-built ring-buffer pages of one
// made-up event, written, read back and printed as trace-cmd report prints them.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/file.hpp"
#include "temp_dir.hpp"
#include "tracedat/reader.hpp"
#include "tracedat/report.hpp"
#include "tracedat/writer.hpp"
#include "tracedat_synthetic.hpp"

using namespace sonde;
using namespace sonde::tracedat;
using sonde::test::SyntheticTrace;

namespace {

Result<std::string> report_of(const std::string& path, const ReportOptions& options = {}) {
  auto reader = TraceDatReader::open(path);
  if (!reader) return tl::unexpected(reader.error());
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  auto written = write_report(**reader, options, out);
  std::fclose(out);
  std::string result(text, size);
  std::free(text);
  if (!written) return tl::unexpected(written.error());
  return result;
}

}  // namespace

TEST(TracedatRoundtrip, ReportPrintsEveryEventInTimeOrderAsTraceCmd) {
  SyntheticTrace trace("order");
  trace.add_page(0, 1'000'000'000, {{1000, 7, "abc"}, {3000, 9, "x"}});
  trace.add_page(1, 1'000'000'000, {{2000, 8, "longer name"}, {3000, 10, "tie"}});
  auto path = trace.write();
  ASSERT_TRUE(path) << path.error().message;
  auto text = report_of(*path);
  ASSERT_TRUE(text) << text.error().message;
  // Equal timestamps: the lower CPU first, as trace-cmd merges.
  EXPECT_EQ(*text,
            "cpus=2\n"
            "          worker-42    [000]     1.000001: sample:               value=7 name=abc\n"
            "          worker-42    [001]     1.000002: sample:               value=8 name=longer name\n"
            "          worker-42    [000]     1.000004: sample:               value=9 name=x\n"
            "          worker-42    [001]     1.000005: sample:               value=10 name=tie\n");
}

TEST(TracedatRoundtrip, NanosecondsCpuSelectionAndFilters) {
  SyntheticTrace trace("options");
  trace.add_page(0, 5'000'000'123, {{1, 1, "a"}, {2, 2, "b"}});
  trace.add_page(1, 5'000'000'000, {{7, 3, "c"}});
  auto path = trace.write();
  ASSERT_TRUE(path) << path.error().message;

  ReportOptions ns;
  ns.nanoseconds = true;
  auto text = report_of(*path, ns);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_NE(text->find("[001]     5.000000007: sample:"), std::string::npos) << *text;
  EXPECT_NE(text->find("[000]     5.000000124: sample:"), std::string::npos) << *text;

  // --cpu keeps only that CPU's records.
  ReportOptions cpu1;
  cpu1.cpus = {1};
  text = report_of(*path, cpu1);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text,
            "cpus=2\n          worker-42    [001]     5.000000: sample:               value=3 name=c\n");

  ReportOptions filtered;
  filtered.filters = {"sample: value > 1"};
  text = report_of(*path, filtered);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(text->find("value=1 "), std::string::npos) << *text;
  EXPECT_NE(text->find("value=2 "), std::string::npos) << *text;
  EXPECT_NE(text->find("value=3 "), std::string::npos) << *text;

  ReportOptions bad;
  bad.filters = {"sample: value == 1 &&"};
  text = report_of(*path, bad);
  ASSERT_FALSE(text);
  bad.filters = {"sample: == 3"};
  auto syntax = report_of(*path, bad);
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().message, "bad filter 'sample: == 3': Syntax error");
  EXPECT_NE(text.error().message.find("bad filter 'sample: value == 1 &&': '&' has nothing on its right"),
            std::string::npos)
      << text.error().message;
}

TEST(TracedatRoundtrip, LostEventsAreReportedBeforeTheNextRecord) {
  SyntheticTrace trace("lost");
  trace.add_page(0, 1'000'000'000, {{10, 1, "a"}});
  trace.add_page(0, 2'000'000'000, {{10, 2, "b"}}, /*missed=*/5);
  auto path = trace.write();
  ASSERT_TRUE(path) << path.error().message;
  auto text = report_of(*path);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_NE(
      text->find(
          "value=1 name=a\nCPU:0 [5 EVENTS DROPPED]\n          worker-42    [000]     2.000000: sample:"),
      std::string::npos)
      << *text;
}

TEST(TracedatRoundtrip, StatPrintsTheRecordedBufferStatistics) {
  SyntheticTrace trace("stat");
  trace.add_page(0, 1'000'000'000, {{10, 1, "a"}});
  trace.contents().cpu_stats = {"entries: 0\noverrun: 3\n", "entries: 0\noverrun: 0\n"};
  auto path = trace.write();
  ASSERT_TRUE(path) << path.error().message;
  ReportOptions stat;
  stat.stat = true;
  auto text = report_of(*path, stat);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_NE(text->find("\nCPU: 0\nentries: 0\noverrun: 3\n\nCPU: 1\nentries: 0\noverrun: 0\n\n\nCPU0 data "
                       "recorded at offset=0x"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("    4096 bytes in size\nCPU1 data recorded at offset=0x"), std::string::npos)
      << *text;
}

TEST(TracedatRoundtrip, ReaderGivesBackWhatTheWriterWasGiven) {
  SyntheticTrace trace("contents");
  trace.add_page(1, 1'000'000'000, {{10, 1, "a"}});
  trace.contents().uname = "Linux host 6.18.0 x86_64";
  auto path = trace.write();
  ASSERT_TRUE(path) << path.error().message;
  auto reader = TraceDatReader::open(*path);
  ASSERT_TRUE(reader) << reader.error().message;
  const auto& read = (*reader)->contents();
  const auto& written = trace.contents();
  EXPECT_EQ(read.header_page, written.header_page);
  EXPECT_EQ(read.header_event, written.header_event);
  EXPECT_EQ(read.event_formats, written.event_formats);
  EXPECT_EQ(read.saved_cmdlines, written.saved_cmdlines);
  EXPECT_EQ(read.kallsyms, written.kallsyms);
  EXPECT_EQ(read.uname, written.uname);
  EXPECT_EQ(read.nr_cpus, 2);
  EXPECT_EQ((*reader)->cpu_count(), 2);
  ASSERT_EQ((*reader)->buffers().size(), 1u);
  ASSERT_EQ((*reader)->buffers()[0].cpus.size(), 2u);
  EXPECT_TRUE((*reader)->buffers()[0].cpus[0].pages.empty());
  EXPECT_EQ((*reader)->buffers()[0].cpus[1].pages.size(), 4096u);
}
