// The inflated copy of a compressed debug file: same build-id, same DWARF, nothing compressed;
// made once, then reused; a file with nothing compressed is used as it is.
#include <gelf.h>
#include <gtest/gtest.h>
#include <libelf.h>
#include <stdlib.h>

#include <string>

#include "symbols/debug_file_cache.hpp"
#include "symbols/elf_image.hpp"
#include "temp_dir.hpp"

namespace sonde::symbols {
namespace {

int compressed_sections(const ElfImage& image) {
  int count = 0;
  for (Elf_Scn* scn = elf_nextscn(image.elf(), nullptr); scn; scn = elf_nextscn(image.elf(), scn)) {
    GElf_Shdr header;
    if (gelf_getshdr(scn, &header) && (header.sh_flags & SHF_COMPRESSED)) ++count;
  }
  return count;
}

TEST(DebugFileCache, InflatesLibcsDebugFileOnceAndKeepsItsBuildId) {
  auto libc = ElfImage::open("/lib/x86_64-linux-gnu/libc.so.6");
  ASSERT_TRUE(libc);
  const std::string id = libc->build_id();
  const std::string debug = "/usr/lib/debug/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
  auto original = ElfImage::open(debug);
  if (!original) GTEST_SKIP() << "libc6-dbg is not installed";
  ASSERT_GT(compressed_sections(*original), 0) << "libc's debug file is expected to be compressed";
  std::string cache = test::unit_temp_dir() + "/debug-file-cache";
  ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  std::string inflated = uncompressed_debug_file(debug, id);
  EXPECT_EQ(inflated, cache + "/sonde/debug/" + id + ".debug");
  auto copy = ElfImage::open(inflated);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->build_id(), id);
  EXPECT_EQ(compressed_sections(*copy), 0);
  EXPECT_TRUE(copy->has_symtab());
  EXPECT_EQ(uncompressed_debug_file(debug, id), inflated);  // reused
  ::unsetenv("XDG_CACHE_HOME");
}

TEST(DebugFileCache, AFileWithNothingCompressedIsUsedAsItIs) {
  std::string workload = std::string(SONDE_WORKLOAD_DIR) + "/probe_targets";
  auto image = ElfImage::open(workload);
  ASSERT_TRUE(image);
  EXPECT_EQ(uncompressed_debug_file(workload, image->build_id()), workload);
  EXPECT_EQ(uncompressed_debug_file(workload, ""), workload);
}

}  // namespace
}  // namespace sonde::symbols
