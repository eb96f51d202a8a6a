// The kallsyms cache: what it gives back equals what parsing kallsyms gives, and a cache made
// for another kernel state, or damaged, is not used.
#include <elf.h>
#include <gtest/gtest.h>

#include <fstream>

#include "base/file.hpp"
#include "symbols/kallsyms_cache.hpp"
#include "temp_dir.hpp"

using namespace sonde;

namespace {

const char* kCachedKallsyms =
    "ffffffff81000000 T _text\n"
    "ffffffff81000100 t helper\n"
    "ffffffff81000200 D some_data\n"
    "ffffffff81000400 T last_kernel\n"
    "ffffffffc0001000 t mod_init\t[ext4]\n"
    "ffffffffc0001080 T mod_work\t[ext4]\n"
    "ffffffffc0002000 t other\t[xfs]\n";

void expect_same_table(const symbols::SymbolTable& a, const symbols::SymbolTable& b) {
  ASSERT_EQ(a.symbols().size(), b.symbols().size());
  for (size_t i = 0; i < a.symbols().size(); ++i) {
    EXPECT_EQ(a.symbols()[i].start, b.symbols()[i].start);
    EXPECT_EQ(a.symbols()[i].size, b.symbols()[i].size);
    EXPECT_EQ(a.symbols()[i].name, b.symbols()[i].name);
    EXPECT_EQ(a.symbols()[i].binding, b.symbols()[i].binding) << a.symbols()[i].name;
  }
}

std::string cache_path(const std::string& name) { return test::unit_temp_dir() + "/cache/" + name; }

}  // namespace

TEST(KallsymsCache, GivesBackWhatParsingGave) {
  auto parsed = symbols::parse_kallsyms(kCachedKallsyms);
  ASSERT_TRUE(parsed) << parsed.error().message;
  std::string path = cache_path("round-trip");
  auto written = symbols::write_kernel_symbols_cache(path, *parsed, "key 1");
  ASSERT_TRUE(written) << written.error().message;
  auto read = symbols::read_kernel_symbols_cache(path, "key 1");
  ASSERT_TRUE(read) << read.error().message;
  expect_same_table(read->kernel, parsed->kernel);
  ASSERT_EQ(read->modules.size(), 2u);
  expect_same_table(read->modules.at("ext4"), parsed->modules.at("ext4"));
  expect_same_table(read->modules.at("xfs"), parsed->modules.at("xfs"));
  // Lookups, not just the lists: the last kernel symbol still ends at the page.
  EXPECT_EQ(read->kernel.find(0xffffffff81000fff)->name, "last_kernel");
  EXPECT_EQ(read->kernel.find(0xffffffff81002000), nullptr);
  EXPECT_EQ(read->modules.at("ext4").find(0xffffffffc0001f00)->name, "mod_work");
  // Bindings from the type letters (script -s's callchain dicts give them), kept by the cache.
  EXPECT_EQ(read->kernel.find(0xffffffff81000100)->binding, STB_LOCAL);
  EXPECT_EQ(read->kernel.find(0xffffffff81000400)->binding, STB_GLOBAL);
  EXPECT_EQ(read->modules.at("ext4").find(0xffffffffc0001000)->binding, STB_LOCAL);
  EXPECT_EQ(read->modules.at("ext4").find(0xffffffffc0001080)->binding, STB_GLOBAL);
}

TEST(KallsymsCache, AnotherKernelStateIsNotUsed) {
  auto parsed = symbols::parse_kallsyms(kCachedKallsyms);
  ASSERT_TRUE(parsed);
  std::string path = cache_path("other-key");
  ASSERT_TRUE(symbols::write_kernel_symbols_cache(path, *parsed, "kernel A boot 1"));
  auto read = symbols::read_kernel_symbols_cache(path, "kernel A boot 2");
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("made for another kernel state"), std::string::npos);
}

TEST(KallsymsCache, EveryTruncationIsAnErrorNotACrash) {
  auto parsed = symbols::parse_kallsyms(kCachedKallsyms);
  ASSERT_TRUE(parsed);
  std::string whole = symbols::serialize_kernel_symbols(*parsed, "k");
  std::string path = cache_path("truncated");
  ASSERT_TRUE(symbols::write_kernel_symbols_cache(path, *parsed, "k"));
  for (size_t size = 0; size < whole.size(); ++size) {
    ASSERT_TRUE(write_file(path, std::string_view(whole).substr(0, size)));
    EXPECT_FALSE(symbols::read_kernel_symbols_cache(path, "k")) << "cut at " << size;
  }
  ASSERT_TRUE(write_file(path, whole + "x"));
  EXPECT_FALSE(symbols::read_kernel_symbols_cache(path, "k"));
}

// On this machine: the running kernel's symbols through the cache are those of /proc/kallsyms,
// both what the first load gives and what the cache file it wrote holds.
TEST(KallsymsCache, RunningKernelThroughTheCacheEqualsProcKallsyms) {
  auto state = symbols::running_kernel_state();
  if (!state) GTEST_SKIP() << "the kernel state cannot be read here (not root?)";
  auto direct = symbols::load_kallsyms("/proc/kallsyms");
  if (!direct) GTEST_SKIP() << direct.error().message;
  std::string home = test::unit_temp_dir() + "/xdg";
  ::setenv("XDG_CACHE_HOME", home.c_str(), 1);
  auto first = symbols::load_kallsyms_cached("/proc/kallsyms");
  auto again = symbols::load_kallsyms_cached("/proc/kallsyms");
  ::unsetenv("XDG_CACHE_HOME");
  ASSERT_TRUE(first && again);
  EXPECT_EQ(first->get(), again->get()) << "loaded twice in one process";
  expect_same_table((*first)->kernel, direct->kernel);
  auto listed = list_directory(home + "/sonde");
  // Another test of this process may have loaded the running kernel's tables first (then
  // nothing was written here).
  if (!listed || listed->empty()) GTEST_SKIP() << "the tables were already loaded in this process";
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().rfind("kallsyms-", 0), 0u);
  auto cached = symbols::read_kernel_symbols_cache(home + "/sonde/" + listed->front(), state->key);
  ASSERT_TRUE(cached) << cached.error().message;
  // Lookups in the mapped table, before anything made its symbols, find what parsing finds.
  const auto& parsed = direct->kernel.symbols();
  for (size_t i = 0; i < parsed.size(); i += 97) {
    uint64_t inside = parsed[i].start + parsed[i].size / 2;
    const symbols::Symbol* ours = cached->kernel.find(inside);
    const symbols::Symbol* theirs = direct->kernel.find(inside);
    ASSERT_EQ(ours == nullptr, theirs == nullptr) << std::hex << inside;
    if (ours) {
      EXPECT_EQ(ours->name, theirs->name) << std::hex << inside;
    }
  }
  expect_same_table(cached->kernel, direct->kernel);
  EXPECT_EQ(cached->modules.size(), direct->modules.size());
}
