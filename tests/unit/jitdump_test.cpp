// format/jitdump and format/jit_elf: a dump of either byte order read back, perf's name test,
// and the ELF file of a function read by readelf (the oracle) and by the build-id reader.
#include "format/jitdump.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "format/build_ids.hpp"
#include "format/jit_elf.hpp"

namespace {

class DumpBytes {
 public:
  explicit DumpBytes(bool swap) : swap_(swap) {}
  template <typename T>
  void put(T value) {
    if (swap_) {
      if constexpr (sizeof(T) == 4) value = static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(value)));
      if constexpr (sizeof(T) == 8) value = static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(value)));
    }
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  std::string out;

 private:
  bool swap_;
};

std::string write_dump(bool swap) {
  DumpBytes b(swap);
  b.put<uint32_t>(0x4A695444), b.put<uint32_t>(1), b.put<uint32_t>(40), b.put<uint32_t>(62);
  b.put<uint32_t>(0), b.put<uint32_t>(4242), b.put<uint64_t>(7), b.put<uint64_t>(0);
  const std::string name = "jitted_add";
  const std::string code = "\x48\x8d\x04\x37\xc3";  // lea (%rdi,%rsi),%rax; ret
  b.put<uint32_t>(0), b.put<uint32_t>(static_cast<uint32_t>(56 + name.size() + 1 + code.size())),
      b.put<uint64_t>(100);
  b.put<uint32_t>(4242), b.put<uint32_t>(4243), b.put<uint64_t>(0x7000), b.put<uint64_t>(0x7000);
  b.put<uint64_t>(code.size()), b.put<uint64_t>(9);
  b.out += name + '\0' + code;
  b.put<uint32_t>(3), b.put<uint32_t>(16), b.put<uint64_t>(200);  // JIT_CODE_CLOSE
  std::string path = testing::TempDir() + "jit-4242.dump";
  std::ofstream(path, std::ios::binary) << b.out;
  return path;
}

}  // namespace

TEST(Jitdump, ReadsEitherByteOrder) {
  for (bool swap : {false, true}) {
    auto dump = sonde::format::read_jitdump(write_dump(swap));
    ASSERT_TRUE(dump) << dump.error().message;
    EXPECT_EQ(dump->pid, 4242u);
    ASSERT_EQ(dump->records.size(), 1u);
    const sonde::format::JitRecord& load = dump->records[0];
    EXPECT_EQ(load.name, "jitted_add");
    EXPECT_EQ(load.code_addr, 0x7000u);
    EXPECT_EQ(load.code_index, 9u);
    EXPECT_EQ(load.tid, 4243u);
    EXPECT_EQ(load.timestamp, 100u);
    EXPECT_EQ(load.code.size(), 5u);
  }
}

TEST(Jitdump, NamesAndBadFiles) {
  EXPECT_TRUE(sonde::format::is_jitdump_name("/home/u/.debug/jit/java-jit-1/jit-4242.dump", 4242));
  EXPECT_TRUE(sonde::format::is_jitdump_name("jit-4242.dump", 0));
  EXPECT_FALSE(sonde::format::is_jitdump_name("/tmp/jit-4242.dump", 4243));
  EXPECT_FALSE(sonde::format::is_jitdump_name("/tmp/jit-42x.dump", 0));
  EXPECT_FALSE(sonde::format::is_jitdump_name("/tmp/perf-4242.map", 4242));
  std::string path = testing::TempDir() + "not-a-dump";
  std::ofstream(path) << std::string(64, 'x');
  auto dump = sonde::format::read_jitdump(path);
  ASSERT_FALSE(dump);
  EXPECT_NE(dump.error().message.find("not a jitdump file"), std::string::npos);
}

TEST(JitElf, ReadelfSeesTheFunction) {
  std::vector<uint8_t> code = {0x48, 0x8d, 0x04, 0x37, 0xc3};
  std::string path = testing::TempDir() + "jitted-4242-9.so";
  ASSERT_TRUE(sonde::format::write_jit_elf(path, "jitted_add", code, 0x7000));
  std::string out;
  if (FILE* pipe = ::popen(("readelf -sW '" + path + "' 2>&1").c_str(), "r")) {
    char buffer[4096];
    while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    ::pclose(pipe);
  }
  EXPECT_NE(out.find("0000000000000080     5 FUNC    LOCAL  DEFAULT    1 jitted_add"), std::string::npos)
      << out;
  auto id = sonde::format::read_elf_build_id(path);
  ASSERT_TRUE(id);
  EXPECT_EQ(id->size(), 20u);
  // The same code at the same address, the same id.
  std::string again = testing::TempDir() + "jitted-4242-10.so";
  ASSERT_TRUE(sonde::format::write_jit_elf(again, "jitted_add", code, 0x7000));
  EXPECT_EQ(*sonde::format::read_elf_build_id(again), *id);
}
