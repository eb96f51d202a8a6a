// record --kcore's copy of the kernel's code (kernel/kcore_copy): the ranges perf 6.1 keeps, and
// the ELF core file it writes, from a made-up /proc (this machine has no /proc/kcore).
#include "kernel/kcore_copy.hpp"

#include <elf.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "temp_dir.hpp"

using namespace sonde;

namespace {

constexpr uint64_t kPage = 4096;

const char* const kKcoreKallsyms =
    "ffffffff81000000 T _text\n"
    "ffffffff81001000 T _stext\n"
    "ffffffff81001234 t some_function\n"
    "ffffffff82000800 T _etext\n"
    "ffffffff82100000 D some_data\n"
    "ffffffffc0001000 t module_function\t[mymod]\n"
    "ffffffffc0003010 t module_function2\t[mymod]\n";

TEST(KcoreRanges, KernelTextAndModulesAsPerfKeepsThem) {
  // The modules start at the lower of /proc/modules' address and the first module symbol, and end
  // a page past the last module symbol rounded up, cut at the end of the segment they start in.
  std::vector<kernel::KcoreSegment> segments = {{0xffffffff80000000, 0x4000000, 0x10000},
                                                {0xffffffffc0000000, 0x3000, 0x5000000}};
  auto ranges =
      kernel::kcore_ranges(kKcoreKallsyms, "mymod 16384 0 - Live 0xffffffffc0000800\n", segments, kPage);
  ASSERT_TRUE(ranges) << ranges.error().message;
  ASSERT_EQ(ranges->size(), 2u);
  EXPECT_EQ((*ranges)[0].address, 0xffffffff81001000u);  // _stext
  EXPECT_EQ((*ranges)[0].length, 0x1000000u);            // to _etext rounded up
  EXPECT_EQ((*ranges)[0].kcore_offset, 0x10000u + 0x1001000u);
  EXPECT_EQ((*ranges)[1].address, 0xffffffffc0000000u);
  EXPECT_EQ((*ranges)[1].length, 0x3000u);  // the segment ends before c0005000
  EXPECT_EQ((*ranges)[1].kcore_offset, 0x5000000u);
}

TEST(KcoreRanges, ARangeIsKeptOnlyFromTheSegmentItStartsIn) {
  // The modules' range starts at c0001000, their first symbol (no /proc/modules line is lower).
  std::vector<kernel::KcoreSegment> segments = {{0xffffffff80000000, 0x4000000, 0x10000},
                                                {0xffffffffc0002000, 0x3000, 0x5000000}};
  auto ranges = kernel::kcore_ranges(kKcoreKallsyms, "", segments, kPage);
  ASSERT_TRUE(ranges) << ranges.error().message;
  ASSERT_EQ(ranges->size(), 1u);
  EXPECT_EQ((*ranges)[0].address, 0xffffffff81001000u);
}

TEST(KcoreRanges, WithoutStextAndEtextTheFunctionsBound) {
  auto ranges = kernel::kcore_ranges("ffffffff81000010 T first\nffffffff81002345 t last\n", "",
                                     {{0xffffffff81000000, 0x10000, 0x2000}}, kPage);
  ASSERT_TRUE(ranges) << ranges.error().message;
  ASSERT_EQ(ranges->size(), 1u);
  EXPECT_EQ((*ranges)[0].address, 0xffffffff81000000u);
  EXPECT_EQ((*ranges)[0].length, 0x4000u);  // last rounded up, plus a page
}

TEST(KcoreRanges, HiddenAddressesAreRefused) {
  auto ranges = kernel::kcore_ranges("0000000000000000 T _stext\n0000000000000000 T _etext\n", "",
                                     {{0xffffffff81000000, 0x10000, 0x2000}}, kPage);
  ASSERT_FALSE(ranges);
  EXPECT_NE(ranges.error().message.find("kptr_restrict"), std::string::npos);
}

void write(const std::string& path, const std::string& content) { std::ofstream(path) << content; }

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A /proc/kcore of two segments: data (not executable) and the kernel's text, a byte pattern.
std::string fake_kcore() {
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_CORE;
  header.e_machine = EM_X86_64;
  header.e_version = EV_CURRENT;
  header.e_phoff = sizeof header;
  header.e_ehsize = sizeof header;
  header.e_phentsize = sizeof(Elf64_Phdr);
  header.e_phnum = 2;
  Elf64_Phdr data{PT_LOAD, PF_R | PF_W, 0x1000, 0xffff888000000000, 0, 0x1000, 0x1000, kPage};
  Elf64_Phdr text{PT_LOAD, PF_R | PF_W | PF_X, 0x2000, 0xffffffff81000000, 0, 0x3000, 0x3000, kPage};
  std::string file(0x5000, '\0');
  std::memcpy(file.data(), &header, sizeof header);
  std::memcpy(file.data() + sizeof header, &data, sizeof data);
  std::memcpy(file.data() + sizeof header + sizeof data, &text, sizeof text);
  for (size_t i = 0; i < 0x3000; ++i) file[0x2000 + i] = static_cast<char>(i * 7);
  return file;
}

TEST(KcoreCopy, WritesTheTextAsAnElfCoreFileBesideKallsymsAndModules) {
  std::string proc = test::unit_temp_dir() + "/kcore_proc", out = test::unit_temp_dir() + "/kcore_dir";
  std::filesystem::create_directories(proc);
  std::filesystem::create_directories(out);
  std::string kallsyms = "ffffffff81000010 T _stext\nffffffff81001800 T _etext\n";
  write(proc + "/kallsyms", kallsyms);
  write(proc + "/modules", "");
  std::string kcore = fake_kcore();
  write(proc + "/kcore", kcore);

  auto copied = kernel::copy_kcore(proc, out);
  ASSERT_TRUE(copied) << copied.error().message;
  EXPECT_EQ(read(out + "/kallsyms"), kallsyms);
  EXPECT_EQ(read(out + "/modules"), "");
  struct stat st {};
  ASSERT_EQ(stat((out + "/kcore").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0400u);

  std::string copy = read(out + "/kcore");
  ASSERT_EQ(copy.size(), 0x1000u + 0x2000u);  // the headers' page, then _stext..._etext in pages
  Elf64_Ehdr header;
  std::memcpy(&header, copy.data(), sizeof header);
  EXPECT_EQ(header.e_type, ET_CORE);
  EXPECT_EQ(header.e_machine, EM_X86_64);
  EXPECT_EQ(header.e_phnum, 1);
  EXPECT_EQ(header.e_shnum, 0);
  EXPECT_EQ(header.e_entry, 0u);
  Elf64_Phdr phdr;
  std::memcpy(&phdr, copy.data() + header.e_phoff, sizeof phdr);
  EXPECT_EQ(phdr.p_type, PT_LOAD);
  EXPECT_EQ(phdr.p_flags, PF_R | PF_W | PF_X);
  EXPECT_EQ(phdr.p_offset, 0x1000u);
  EXPECT_EQ(phdr.p_vaddr, 0xffffffff81000000u);
  EXPECT_EQ(phdr.p_paddr, 0u);
  EXPECT_EQ(phdr.p_filesz, 0x2000u);
  EXPECT_EQ(phdr.p_memsz, 0x2000u);
  EXPECT_EQ(phdr.p_align, kPage);
  EXPECT_EQ(copy.substr(0x1000), kcore.substr(0x2000, 0x2000));
  std::filesystem::remove_all(out);
  std::filesystem::remove_all(proc);
}

TEST(KcoreCopy, AFileThatIsNotElfLeavesNothingBehind) {
  std::string proc = test::unit_temp_dir() + "/kcore_bad_proc",
              out = test::unit_temp_dir() + "/kcore_bad_dir";
  std::filesystem::create_directories(proc);
  std::filesystem::create_directories(out);
  write(proc + "/kallsyms", "ffffffff81000010 T _stext\nffffffff81001800 T _etext\n");
  write(proc + "/kcore", "not an ELF file at all, but long enough for a header's worth of bytes......");
  auto copied = kernel::copy_kcore(proc, out);
  ASSERT_FALSE(copied);
  EXPECT_EQ(copied.error().message, proc + "/kcore is not an ELF file");
  EXPECT_TRUE(std::filesystem::is_empty(out));
  std::filesystem::remove_all(out);
  std::filesystem::remove_all(proc);
}

}  // namespace
