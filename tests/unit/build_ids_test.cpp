// format/build_ids: the ELF note reader against readelf -n, a hand-made relocatable object
// (the section-header path), note alignment, the kernel's notes and the per-file cache.
#include "format/build_ids.hpp"

#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>

using namespace sonde;
using namespace sonde::format;

namespace {

std::string shell_output(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  ::pclose(pipe);
  return out;
}

// "Build ID: <hex>" from readelf -n, the oracle. (No std::regex: g++ 12 warns inside it under ASan.)
std::string readelf_build_id(const std::string& path) {
  std::string out = shell_output("readelf -n '" + path + "' 2>/dev/null");
  size_t at = out.find("Build ID: ");
  if (at == std::string::npos) return "";
  at += 10;
  return out.substr(at, out.find_first_not_of("0123456789abcdef", at) - at);
}

// The demo workload next to this test binary (build/tests/unit_tests -> build/workloads/demo).
std::string demo_workload() {
  char exe[4096] = {};
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "";
  std::string dir(exe, static_cast<size_t>(n));
  dir = dir.substr(0, dir.rfind('/'));
  return dir.substr(0, dir.rfind('/')) + "/workloads/demo";
}

std::string temp_path(const char* name) {
  return std::string("/tmp/sonde-buildid-") + std::to_string(::getpid()) + name;
}

void put_note(std::string& out, uint32_t type, std::string_view name, std::string_view desc, size_t align) {
  auto pad = [&](size_t n) { out.append((align - n % align) % align, '\0'); };
  uint32_t header[3] = {static_cast<uint32_t>(name.size()), static_cast<uint32_t>(desc.size()), type};
  out.append(reinterpret_cast<const char*>(header), sizeof header);
  out.append(name);
  pad(name.size());
  out.append(desc);
  pad(desc.size());
}

}  // namespace

TEST(SidebandBuildIds, MatchesReadelfOnSystemBinaries) {
  std::vector<std::string> files = {"/bin/ls", "/usr/lib/x86_64-linux-gnu/libc.so.6"};
  if (std::string demo = demo_workload(); ::access(demo.c_str(), R_OK) == 0) files.push_back(demo);
  for (const auto& path : files) {
    std::string expected = readelf_build_id(path);
    if (expected.empty()) continue;  // readelf missing or the file has no note
    auto id = read_elf_build_id(path);
    ASSERT_TRUE(id) << id.error().message;
    EXPECT_EQ(build_id_hex(*id), expected) << path;
  }
}

TEST(SidebandBuildIds, NotAnElfOrNoNote) {
  auto text = read_elf_build_id("/etc/hostname");
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("not an ELF"), std::string::npos);
  EXPECT_FALSE(read_elf_build_id("/nonexistent/file"));
}

TEST(SidebandBuildIds, NotesWithFourAndEightByteAlignment) {
  const std::string id("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14",
                       20);
  for (size_t align : {4, 8}) {
    std::string notes;
    put_note(notes, 5 /* NT_GNU_PROPERTY_TYPE_0 */, std::string_view("GNU", 4), std::string(12, 'p'), align);
    put_note(notes, NT_GNU_BUILD_ID, std::string_view("XYZ", 4), "not-this", align);  // wrong owner
    put_note(notes, NT_GNU_BUILD_ID, std::string_view("GNU", 4), id, align);
    auto found = find_gnu_build_id({reinterpret_cast<const uint8_t*>(notes.data()), notes.size()}, align);
    ASSERT_TRUE(found) << align;
    EXPECT_EQ(std::string(found->begin(), found->end()), id);
    // Cut into the descriptor: no read past the end, no id.
    EXPECT_FALSE(
        find_gnu_build_id({reinterpret_cast<const uint8_t*>(notes.data()), notes.size() - 8}, align));
  }
}

TEST(SidebandBuildIds, RelocatableObjectThroughSectionHeaders) {
  // An ET_REL file as a kernel module is: no program headers, the note in an SHT_NOTE section.
  std::string note;
  put_note(note, NT_GNU_BUILD_ID, std::string_view("GNU", 4), "\xaa\xbb\xcc\xdd", 4);
  Elf64_Ehdr ehdr{};
  std::memcpy(ehdr.e_ident, ELFMAG, SELFMAG);
  ehdr.e_ident[EI_CLASS] = ELFCLASS64;
  ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
  ehdr.e_ident[EI_VERSION] = EV_CURRENT;
  ehdr.e_type = ET_REL;
  ehdr.e_machine = EM_X86_64;
  ehdr.e_ehsize = sizeof ehdr;
  ehdr.e_shentsize = sizeof(Elf64_Shdr);
  ehdr.e_shnum = 2;
  ehdr.e_shoff = sizeof ehdr + note.size();
  Elf64_Shdr shdrs[2]{};
  shdrs[1].sh_type = SHT_NOTE;
  shdrs[1].sh_offset = sizeof ehdr;
  shdrs[1].sh_size = note.size();
  shdrs[1].sh_addralign = 4;
  std::string path = temp_path("-rel.o");
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&ehdr), sizeof ehdr);
    out.write(note.data(), static_cast<std::streamsize>(note.size()));
    out.write(reinterpret_cast<const char*>(shdrs), sizeof shdrs);
  }
  auto id = read_elf_build_id(path);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(build_id_hex(*id), "aabbccdd");
  ::unlink(path.c_str());
}

TEST(SidebandBuildIds, KernelNotes) {
  if (::access("/sys/kernel/notes", R_OK) != 0) GTEST_SKIP() << "no /sys/kernel/notes";
  auto id = read_kernel_build_id();
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(id->size(), 20u);
}

TEST(SidebandBuildIds, CacheReadsAFileOncePerIdentity) {
  std::string copy = temp_path("-ls");
  ASSERT_EQ(std::system(("cp /bin/ls " + copy).c_str()), 0);
  BuildIdCache cache;
  auto first = cache.lookup(copy);
  ASSERT_TRUE(first);
  EXPECT_EQ(cache.lookup(copy), first);
  EXPECT_EQ(cache.reads(), 1u);
  // A different file at the same path (a rebuild) is read again.
  ASSERT_EQ(std::system(("cp /usr/lib/x86_64-linux-gnu/libc.so.6 " + copy).c_str()), 0);
  auto second = cache.lookup(copy);
  EXPECT_EQ(cache.reads(), 2u);
  EXPECT_NE(second, first);
  EXPECT_FALSE(cache.lookup("/etc/hostname"));
  EXPECT_FALSE(cache.lookup("/etc/hostname"));
  EXPECT_EQ(cache.reads(), 3u);
  ::unlink(copy.c_str());
}

TEST(SidebandBuildIds, FeatureEntriesForSampledDsos) {
  BuildIdCache cache;
  std::vector<DsoRef> dsos = {{"[kernel.kallsyms]", true},
                              {"/bin/ls", false},
                              {"[vdso]", false},
                              {"//anon", false},
                              {"/tmp/gone (deleted)", false}};
  auto entries = cache.entries(dsos);
  size_t kernel = ::access("/sys/kernel/notes", R_OK) == 0 ? 1 : 0;
  ASSERT_EQ(entries.size(), kernel + 1);
  if (kernel) {
    EXPECT_EQ(entries[0].filename, "[kernel.kallsyms]");
    EXPECT_EQ(entries[0].cpumode, PERF_RECORD_MISC_KERNEL);
  }
  EXPECT_EQ(entries.back().filename, "/bin/ls");
  EXPECT_EQ(entries.back().cpumode, PERF_RECORD_MISC_USER);
  EXPECT_EQ(entries.back().pid, -1);
  EXPECT_EQ(build_id_hex(entries.back().build_id), readelf_build_id("/bin/ls"));
}
