// Bad trace.dat input: missing, not a trace.dat, truncated anywhere, bytes overwritten. Each
// ends in a clear error or a report of what could be read; never a crash (this also runs
// under ASan and UBSan).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "base/file.hpp"
#include "temp_dir.hpp"
#include "tracedat/reader.hpp"
#include "tracedat/report.hpp"
#include "tracedat_synthetic.hpp"

using namespace sonde;
using namespace sonde::tracedat;
using sonde::test::create_file;
using sonde::test::SyntheticTrace;

namespace {

// Opens and reports `path` into /dev/null; the error message, or "" when it all went well.
std::string try_report(const std::string& path) {
  auto reader = TraceDatReader::open(path);
  if (!reader) return reader.error().message;
  std::FILE* out = std::fopen("/dev/null", "w");
  auto written = write_report(**reader, {}, out);
  std::fclose(out);
  return written ? "" : written.error().message;
}

std::string good_file(const std::string& name) {
  SyntheticTrace trace(name);
  trace.add_page(0, 1'000'000'000, {{10, 1, "a"}, {20, 2, "bb"}});
  trace.add_page(1, 1'000'000'000, {{15, 3, "ccc"}});
  auto path = trace.write();
  return path ? *path : "";
}

}  // namespace

TEST(TracedatCorrupt, MissingFileSaysSo) {
  auto message = try_report(test::unit_temp_dir() + "/no-such.dat");
  EXPECT_NE(message.find("cannot open"), std::string::npos) << message;
}

TEST(TracedatCorrupt, OtherFilesAreNotTakenForTraceDat) {
  std::string path = test::unit_temp_dir() + "/text.dat";
  ASSERT_TRUE(create_file(path, "this is a text file, not a trace\n"));
  auto message = try_report(path);
  EXPECT_NE(message.find("is not a trace.dat file"), std::string::npos) << message;
  ASSERT_TRUE(create_file(path, ""));
  message = try_report(path);
  EXPECT_NE(message.find("is not a trace.dat file"), std::string::npos) << message;
}

TEST(TracedatCorrupt, EveryTruncationIsAnErrorNotACrash) {
  std::string path = good_file("truncate");
  ASSERT_FALSE(path.empty());
  auto whole = read_file(path);
  ASSERT_TRUE(whole);
  ASSERT_EQ(try_report(path), "");
  std::string cut = test::unit_temp_dir() + "/cut.dat";
  // Every length through the metadata, then page by page through the CPU data.
  for (size_t length = 0; length < whole->size(); length += (length < 2048 ? 7 : 1024)) {
    ASSERT_TRUE(create_file(cut, std::string_view(*whole).substr(0, length)));
    auto message = try_report(cut);
    EXPECT_FALSE(message.empty()) << "a file cut to " << length << " bytes read as if whole";
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(TracedatCorrupt, OverwrittenBytesNeverCrash) {
  std::string path = good_file("overwrite");
  ASSERT_FALSE(path.empty());
  auto whole = read_file(path);
  ASSERT_TRUE(whole);
  std::string bad = test::unit_temp_dir() + "/bad.dat";
  for (size_t at = 0; at < whole->size(); at += (at < 1024 ? 3 : 509)) {
    // Only binary bytes (lengths, counts, offsets, page and event headers, field values):
    // libtraceevent 1.7 leaks memory when it parses a format text made corrupt, and the
    // sanitizer run counts leaks.
    unsigned char original = static_cast<unsigned char>((*whole)[at]);
    if ((original >= 0x20 && original < 0x7f) || original == '\t' || original == '\n') continue;
    for (char value : {'\xff', '\x00', '\x7f'}) {
      std::string copy = *whole;
      copy[at] = value;
      ASSERT_TRUE(create_file(bad, copy));
      (void)try_report(bad);  // any outcome but a crash or a sanitizer report
    }
  }
}

TEST(TracedatCorrupt, APageClaimingMoreThanItHoldsIsReported) {
  SyntheticTrace trace("bigpage");
  trace.add_page(0, 1'000'000'000, {{10, 1, "a"}});
  auto path = trace.write();
  ASSERT_TRUE(path);
  auto whole = read_file(*path);
  ASSERT_TRUE(whole);
  // The CPU 0 data is the first page-aligned page after the metadata: find its commit field.
  size_t data = whole->size() - 4096;
  uint64_t commit = 100000;
  std::memcpy(&(*whole)[data + 8], &commit, 8);
  ASSERT_TRUE(create_file(*path, *whole));
  auto message = try_report(*path);
  EXPECT_NE(message.find("corrupt page"), std::string::npos) << message;
}
