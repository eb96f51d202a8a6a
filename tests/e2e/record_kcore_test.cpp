// record --kcore: where the kernel has a /proc/kcore, a directory recording that perf reads, with
// the kernel's code and kallsyms beside it; where it has none (this project's test machine), the
// refusal perf gives, before anything is written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "run.hpp"

using namespace sonde::test;

namespace {

bool kcore_readable() { return access("/proc/kcore", R_OK) == 0; }

TEST(RecordKcore, WithoutKcoreRefusedWithPerfsReasonAndNothingWritten) {
  if (kcore_readable())
    GTEST_SKIP() << "this kernel has /proc/kcore: RecordsADirectoryPerfReads runs instead";
  std::string out = temp_dir() + "/kcore_refused";
  auto r = run(sonde_bin() + " record --kcore -o " + out + " -- true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(
      r.err,
      "sonde record: --kcore: kcore is not readable: this kernel has no /proc/kcore (CONFIG_PROC_KCORE), "
      "or it needs root; record without --kcore\n");
  EXPECT_FALSE(std::filesystem::exists(out));
  if (have_perf()) {
    auto perf = run("perf record --kcore -o " + out + "_perf -- true");
    EXPECT_NE(perf.exit_code, 0);
    EXPECT_NE(perf.err.find("kcore is not readable"), std::string::npos) << perf.err;
  }
}

TEST(RecordKcore, RecordsADirectoryPerfReads) {
  if (!kcore_readable()) GTEST_SKIP() << "this kernel has no /proc/kcore";
  std::string out = temp_dir() + "/kcore_recorded";
  auto r = run(sonde_bin() + " record -q --kcore -o " + out + " -- " + workload("writes") + " 1000");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* file : {"/data", "/kcore_dir/kcore", "/kcore_dir/kallsyms", "/kcore_dir/modules"})
    EXPECT_TRUE(std::filesystem::exists(out + file)) << file;
  if (have_perf()) {
    auto perf = run("perf script -i " + out + " -F comm 2>&1 | grep -c writes");
    EXPECT_EQ(perf.exit_code, 0) << perf.out;
    auto evlist = run("perf evlist -v -i " + out);
    EXPECT_NE(evlist.out.find("text_poke: 1"), std::string::npos) << evlist.out;
  }
}

}  // namespace
