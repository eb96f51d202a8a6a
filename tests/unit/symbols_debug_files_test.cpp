// Stripped binaries and their separate debug files: found by build-id under a debug root, by
// .gnu_debuglink next to the file, through the build-id cache; a changed file (build-id
// mismatch) and a missing one degrade to no symbols and one note.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "symbols/buildid_cache.hpp"
#include "symbols/symbolizer.hpp"
#include "symbols_support.hpp"
#include "temp_dir.hpp"

using namespace sonde;
using namespace sonde::test;
using sonde::session::DsoKind;

namespace {

class DebugFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        unit_temp_dir() + "/debug-files-" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir_);
    original_ = workload_path("demo");
    stripped_ = dir_ + "/demo";
    debug_ = dir_ + "/demo.debug";
    ASSERT_EQ(shell_output("objcopy --only-keep-debug '" + original_ + "' '" + debug_ +
                           "' && objcopy --strip-all '" + original_ + "' '" + stripped_ + "' && echo ok"),
              "ok\n");
    build_id_ = readelf_build_id(original_);
    ASSERT_EQ(build_id_.size(), 40u);
    auto functions = readelf_functions(original_);
    hot_leaf_ = functions.at("hot_leaf").value;
    hot_leaf_offset_ = file_offset_of(readelf_loads(original_), hot_leaf_) + 3;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  symbols::SymbolizerOptions options() const {
    symbols::SymbolizerOptions o;
    o.buildid_dir = dir_ + "/no-cache";
    o.debug_root = dir_ + "/debug-root";
    o.debuginfod = false;
    return o;
  }

  std::string dir_, original_, stripped_, debug_, build_id_;
  uint64_t hot_leaf_ = 0, hot_leaf_offset_ = 0;
};

}  // namespace

TEST_F(DebugFiles, StrippedWithoutDebugFileHasNoStaticSymbolsAndOneNote) {
  Diagnostics notes;
  symbols::Symbolizer symbolizer(options(), &notes);
  auto dso = make_dso(0, DsoKind::user, stripped_, build_id_);
  EXPECT_EQ(symbolizer.find(dso, hot_leaf_offset_), nullptr);
  EXPECT_EQ(symbolizer.find(dso, hot_leaf_offset_ + 1), nullptr);
  EXPECT_EQ(symbolizer.srcline(dso, hot_leaf_offset_), "");
  ASSERT_EQ(test::note_texts(notes).size(), 1u);
  EXPECT_NE(test::note_texts(notes)[0].find(stripped_), std::string::npos) << test::note_texts(notes)[0];
  EXPECT_NE(test::note_texts(notes)[0].find("stripped"), std::string::npos) << test::note_texts(notes)[0];
  EXPECT_EQ(symbolizer.elf_path(dso), stripped_);
}

TEST_F(DebugFiles, DebugFileInstalledByBuildIdResolves) {
  std::string by_id =
      dir_ + "/debug-root/.build-id/" + build_id_.substr(0, 2) + "/" + build_id_.substr(2) + ".debug";
  std::filesystem::create_directories(std::filesystem::path(by_id).parent_path());
  std::filesystem::copy_file(debug_, by_id);
  Diagnostics notes;
  symbols::Symbolizer symbolizer(options(), &notes);
  auto dso = make_dso(0, DsoKind::user, stripped_, build_id_);
  const symbols::Symbol* symbol = symbolizer.find(dso, hot_leaf_offset_);
  ASSERT_NE(symbol, nullptr);
  EXPECT_EQ(symbol->name, "hot_leaf");
  EXPECT_EQ(symbol->start, hot_leaf_);
  EXPECT_TRUE(symbolizer.srcline(dso, hot_leaf_offset_).starts_with("demo.c:1"));
  EXPECT_EQ(symbolizer.elf_path(dso), stripped_);  // the code is in the stripped file
  EXPECT_EQ(symbolizer.debug_path(dso), by_id);
  EXPECT_TRUE(test::note_texts(notes).empty());
}

TEST_F(DebugFiles, WithoutARecordedBuildIdTheFilesOwnFindsItsDebugFile) {
  std::string by_id =
      dir_ + "/debug-root/.build-id/" + build_id_.substr(0, 2) + "/" + build_id_.substr(2) + ".debug";
  std::filesystem::create_directories(std::filesystem::path(by_id).parent_path());
  std::filesystem::copy_file(debug_, by_id);
  symbols::Symbolizer symbolizer(options());
  auto dso = make_dso(0, DsoKind::user, stripped_);  // no BUILD_ID entry for it
  const symbols::Symbol* symbol = symbolizer.find(dso, hot_leaf_offset_);
  ASSERT_NE(symbol, nullptr);
  EXPECT_EQ(symbol->name, "hot_leaf");
}

TEST_F(DebugFiles, DebuglinkNextToTheFileResolves) {
  ASSERT_EQ(
      shell_output("cd '" + dir_ + "' && objcopy --add-gnu-debuglink=demo.debug demo demo.linked && echo ok"),
      "ok\n");
  std::string linked = dir_ + "/demo.linked";
  std::filesystem::create_directories(dir_ + "/.debug");
  std::filesystem::rename(debug_, dir_ + "/.debug/demo.debug");
  symbols::Symbolizer symbolizer(options());
  auto dso = make_dso(0, DsoKind::user, linked, readelf_build_id(linked));
  const symbols::Symbol* symbol = symbolizer.find(dso, hot_leaf_offset_);
  ASSERT_NE(symbol, nullptr);
  EXPECT_EQ(symbol->name, "hot_leaf");
  EXPECT_EQ(symbolizer.debug_path(dso), dir_ + "/.debug/demo.debug");
}

TEST_F(DebugFiles, BuildIdCacheEntryResolvesWhenTheFileIsGone) {
  auto added = symbols::buildid_cache_add(dir_ + "/cache", original_, dir_ + "/debug-root");
  ASSERT_TRUE(added) << added.error().message;
  symbols::SymbolizerOptions o = options();
  o.buildid_dir = dir_ + "/cache";
  symbols::Symbolizer symbolizer(o);
  auto dso = make_dso(0, DsoKind::user, "/nonexistent/demo", build_id_);
  const symbols::Symbol* symbol = symbolizer.find(dso, hot_leaf_offset_);
  ASSERT_NE(symbol, nullptr);
  EXPECT_EQ(symbol->name, "hot_leaf");
  EXPECT_EQ(symbolizer.elf_path(dso),
            dir_ + "/cache/.build-id/" + build_id_.substr(0, 2) + "/" + build_id_.substr(2) + "/elf");
}

TEST_F(DebugFiles, ChangedFileIsNotUsed) {
  Diagnostics notes;
  symbols::Symbolizer symbolizer(options(), &notes);
  std::string other_id(40, 'a');
  auto dso = make_dso(0, DsoKind::user, original_, other_id);
  EXPECT_EQ(symbolizer.find(dso, hot_leaf_offset_), nullptr);
  EXPECT_EQ(symbolizer.find(dso, hot_leaf_offset_ + 1), nullptr);
  ASSERT_EQ(test::note_texts(notes).size(), 1u);
  EXPECT_NE(test::note_texts(notes)[0].find("build-id"), std::string::npos) << test::note_texts(notes)[0];
  EXPECT_EQ(symbolizer.elf_path(dso), "");
}

TEST_F(DebugFiles, MissingFileGivesOneNote) {
  Diagnostics notes;
  symbols::Symbolizer symbolizer(options(), &notes);
  auto dso = make_dso(3, DsoKind::user, dir_ + "/not-there.so");
  EXPECT_EQ(symbolizer.find(dso, 0x1000), nullptr);
  EXPECT_EQ(symbolizer.find(dso, 0x2000), nullptr);
  EXPECT_EQ(symbolizer.srcline(dso, 0x1000), "");
  ASSERT_EQ(test::note_texts(notes).size(), 1u);
  EXPECT_NE(test::note_texts(notes)[0].find("not found"), std::string::npos);
}

TEST_F(DebugFiles, SymfsIsTheRootFilesAreLookedUpUnder) {
  std::filesystem::create_directories(dir_ + "/root/opt/app");
  std::filesystem::copy_file(original_, dir_ + "/root/opt/app/demo");
  symbols::SymbolizerOptions o = options();
  o.symfs = dir_ + "/root";
  symbols::Symbolizer symbolizer(o);
  auto dso = make_dso(0, DsoKind::user, "/opt/app/demo", build_id_);
  const symbols::Symbol* symbol = symbolizer.find(dso, hot_leaf_offset_);
  ASSERT_NE(symbol, nullptr);
  EXPECT_EQ(symbol->name, "hot_leaf");
  EXPECT_EQ(symbolizer.elf_path(dso), dir_ + "/root/opt/app/demo");
}

TEST_F(DebugFiles, VmlinuxGivesKernelSymbolsAtTheirAddresses) {
  // Any ELF file with a symbol table stands in for vmlinux: its symbols are taken as absolute.
  symbols::SymbolizerOptions o = options();
  o.vmlinux = original_;
  symbols::Symbolizer symbolizer(o);
  auto kernel = make_dso(0, DsoKind::kernel, "[kernel.kallsyms]", build_id_);
  const symbols::Symbol* symbol = symbolizer.find(kernel, hot_leaf_ + 1);
  ASSERT_NE(symbol, nullptr);
  EXPECT_EQ(symbol->name, "hot_leaf");
  EXPECT_EQ(symbolizer.elf_address(kernel, hot_leaf_ + 1), hot_leaf_ + 1);
}

TEST_F(DebugFiles, AnotherKernelsKallsymsComesFromTheBuildIdCache) {
  std::string id(40, 'c');
  symbols::SymbolizerOptions o = options();
  o.buildid_dir = dir_ + "/cache";
  {
    Diagnostics notes;
    symbols::Symbolizer symbolizer(o, &notes);
    auto kernel = make_dso(0, DsoKind::kernel, "[kernel.kallsyms]", id);
    EXPECT_EQ(symbolizer.find(kernel, 0xffffffff81000010), nullptr);
    ASSERT_EQ(test::note_texts(notes).size(), 1u);
    EXPECT_NE(test::note_texts(notes)[0].find("another kernel"), std::string::npos)
        << test::note_texts(notes)[0];
  }
  // perf's layout: [kernel.kallsyms]/<id>/kallsyms, linked from .build-id/cc/<rest>.
  std::string entry = dir_ + "/cache/[kernel.kallsyms]/" + id;
  std::filesystem::create_directories(entry);
  std::ofstream(entry + "/kallsyms") << "ffffffff81000000 T _text\nffffffff81000100 T recorded_kernel_fn\n";
  std::filesystem::create_directories(dir_ + "/cache/.build-id/cc");
  std::filesystem::create_symlink("../../[kernel.kallsyms]/" + id,
                                  dir_ + "/cache/.build-id/cc/" + id.substr(2));
  symbols::Symbolizer symbolizer(o);
  auto kernel = make_dso(0, DsoKind::kernel, "[kernel.kallsyms]", id);
  const symbols::Symbol* symbol = symbolizer.find(kernel, 0xffffffff81000110);
  ASSERT_NE(symbol, nullptr);
  EXPECT_EQ(symbol->name, "recorded_kernel_fn");
  EXPECT_EQ(symbols::buildid_cache_list(dir_ + "/cache").at(0).path, "[kernel.kallsyms]");
}
