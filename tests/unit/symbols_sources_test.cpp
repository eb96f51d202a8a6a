// Symbol sources other than ELF files: kallsyms (kernel and modules), JIT perf maps, the vdso;
// and perf's clean-ups of a symbol list.
#include <elf.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "base/file.hpp"
#include "symbols/jit_map.hpp"
#include "symbols/kernel_symbols.hpp"
#include "symbols/symbol_table.hpp"
#include "symbols/symbolizer.hpp"
#include "symbols/vdso.hpp"
#include "symbols_support.hpp"
#include "temp_dir.hpp"

using namespace sonde;
using namespace sonde::test;
using sonde::session::DsoKind;

TEST(SymbolTable, SameAddressKeepsPerfsChoice) {
  using symbols::RawSymbol;
  auto table = symbols::SymbolTable::build({
      {0x100, 0, STB_GLOBAL, "zero_size"},
      {0x100, 0x10, STB_LOCAL, "sized_local"},  // sized beats zero-size
      {0x200, 0x10, STB_WEAK, "weak"},
      {0x200, 0x10, STB_GLOBAL, "strong"},  // global beats weak
      {0x300, 0x10, STB_GLOBAL, "__under"},
      {0x300, 0x10, STB_GLOBAL, "under"},  // fewer leading underscores
      {0x400, 0x10, STB_GLOBAL, "short"},
      {0x400, 0x10, STB_GLOBAL, "longer_name"},  // then the longer name
  });
  ASSERT_EQ(table.symbols().size(), 4u);
  EXPECT_EQ(table.find(0x105)->name, "sized_local");
  EXPECT_EQ(table.find(0x200)->name, "strong");
  EXPECT_EQ(table.find(0x30f)->name, "under");
  EXPECT_EQ(table.find(0x400)->name, "longer_name");
  EXPECT_EQ(table.find(0x110), nullptr);  // a gap after a sized symbol stays a gap
  EXPECT_EQ(table.find(0x50), nullptr);
}

TEST(SymbolTable, ZeroSizeSymbolsEndAtTheNextOne) {
  auto table = symbols::SymbolTable::build({
      {0x1000, 0, STB_GLOBAL, "asm_a"},
      {0x1040, 0, STB_GLOBAL, "asm_b"},
      {0x1100, 0x20, STB_GLOBAL, "c_func"},
  });
  EXPECT_EQ(table.find(0x103f)->name, "asm_a");
  EXPECT_EQ(table.find(0x1040)->name, "asm_b");
  EXPECT_EQ(table.find(0x10ff)->name, "asm_b");
  EXPECT_EQ(table.find(0x1040)->size, 0xc0u);
  EXPECT_EQ(table.find(0x1120), nullptr);
}

TEST(Kallsyms, ModulesAreSplitAndEndsFixedUp) {
  auto parsed = symbols::parse_kallsyms(
      "ffffffff81000000 T _text\n"
      "ffffffff81000100 t helper\n"
      "ffffffff81000200 D some_data\n"
      "ffffffff81000300 r skipped_rodata\n"
      "ffffffff81000400 T last_kernel\n"
      "ffffffffc0001000 t mod_init\t[ext4]\n"
      "ffffffffc0001080 T mod_work\t[ext4]\n"
      "ffffffffc0002000 t other\t[xfs]\n");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->kernel.find(0xffffffff81000150)->name, "helper");
  EXPECT_EQ(parsed->kernel.find(0xffffffff81000350)->name, "some_data");  // rodata is not a symbol
  // The last kernel symbol before the modules ends at the next page boundary, not at a module.
  EXPECT_EQ(parsed->kernel.find(0xffffffff81000fff)->name, "last_kernel");
  EXPECT_EQ(parsed->kernel.find(0xffffffff81002000), nullptr);
  ASSERT_EQ(parsed->modules.size(), 2u);
  EXPECT_EQ(parsed->modules.at("ext4").find(0xffffffffc0001050)->name, "mod_init");
  EXPECT_EQ(parsed->modules.at("ext4").find(0xffffffffc0001f00)->name, "mod_work");
  EXPECT_EQ(parsed->modules.at("xfs").find(0xffffffffc0002001)->name, "other");
  EXPECT_FALSE(symbols::parse_kallsyms("0000000000000000 T _text\n0000000000000000 T foo\n"));
}

TEST(Kallsyms, ARunningKernelSymbolResolves) {
  std::ifstream kallsyms("/proc/kallsyms");
  std::string line;
  std::map<uint64_t, std::vector<std::string>> text;  // text symbols by address
  while (std::getline(kallsyms, line)) {
    std::istringstream fields(line);
    std::string address, type, name, module;
    if (!(fields >> address >> type >> name) || (fields >> module)) continue;
    if (type != "T" && type != "t") continue;
    text[std::stoull(address, nullptr, 16)].push_back(name);
  }
  if (text.size() < 2 || text.begin()->first == 0) GTEST_SKIP() << "kallsyms shows no addresses here";
  // A function in the middle of the kernel with its own address, and room after it.
  auto it = std::next(text.begin(), static_cast<long>(text.size() / 2));
  while (it != text.end() && (it->second.size() != 1 || std::next(it)->first - it->first < 2)) ++it;
  ASSERT_NE(it, text.end());
  symbols::Symbolizer symbolizer(symbols::SymbolizerOptions{});
  auto kernel = make_dso(0, DsoKind::kernel, "[kernel.kallsyms]");
  const symbols::Symbol* symbol = symbolizer.find(kernel, it->first + 1);
  ASSERT_NE(symbol, nullptr);
  EXPECT_EQ(symbol->name, it->second.front());
  EXPECT_EQ(symbol->start, it->first);
  EXPECT_EQ(symbolizer.elf_address(kernel, it->first + 1), it->first + 1);
}

TEST(JitMap, EntriesAreParsedAsPerfReadsThem) {
  auto entries = symbols::parse_perf_map(
      "7f0000001000 40 LazyCompile:~foo bar.js:1\n"
      "0x7f0000001040 0x10 Builtin:Stub\n"
      "not a line\n"
      "7f0000002000 20 jit_leaf\n");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].start, 0x7f0000001000u);
  EXPECT_EQ(entries[0].size, 0x40u);
  EXPECT_EQ(entries[0].name, "LazyCompile:~foo bar.js:1");  // names keep their spaces
  EXPECT_EQ(entries[1].start, 0x7f0000001040u);
  EXPECT_EQ(entries[2].name, "jit_leaf");

  std::string path = unit_temp_dir() + "/perf-4242.map";
  std::ofstream(path) << "7f0000001000 40 first\n7f0000001080 10 second\n";
  symbols::Symbolizer symbolizer(symbols::SymbolizerOptions{});
  auto dso = make_dso(0, DsoKind::jit_map, path);
  ASSERT_NE(symbolizer.find(dso, 0x7f000000103f), nullptr);
  EXPECT_EQ(symbolizer.find(dso, 0x7f000000103f)->name, "first");
  EXPECT_EQ(symbolizer.find(dso, 0x7f0000001040), nullptr);
  EXPECT_EQ(symbolizer.find(dso, 0x7f0000001085)->name, "second");
  std::filesystem::remove(path);
}

TEST(Vdso, OurOwnVdsoResolvesItsFunctions) {
  auto image = symbols::own_vdso_image();
  if (image.empty()) GTEST_SKIP() << "no vdso in this process";
  std::string path = unit_temp_dir() + "/vdso.so";
  std::ofstream(path, std::ios::binary).write(image.data(), static_cast<std::streamsize>(image.size()));
  auto functions = readelf_functions(path);
  auto loads = readelf_loads(path);
  std::string build_id = readelf_build_id(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(functions.count("__vdso_clock_gettime")) << "readelf sees no __vdso_clock_gettime";
  Diagnostics notes;
  symbols::Symbolizer symbolizer(symbols::SymbolizerOptions{}, &notes);
  auto vdso = make_dso(0, DsoKind::vdso, "[vdso]", build_id);
  const auto& facts = functions.at("__vdso_clock_gettime");
  const symbols::Symbol* symbol = symbolizer.find(vdso, file_offset_of(loads, facts.value) + 1);
  ASSERT_NE(symbol, nullptr);
  EXPECT_EQ(symbol->start, facts.value);
  // The vdso has both names at one address; perf keeps the global over the weak one.
  EXPECT_EQ(symbol->name, "__vdso_clock_gettime");

  auto foreign = make_dso(1, DsoKind::vdso, "[vdso]", std::string(40, 'b'));
  EXPECT_EQ(symbolizer.find(foreign, file_offset_of(loads, facts.value)), nullptr);
  EXPECT_EQ(test::note_texts(notes).size(), 1u);
}
