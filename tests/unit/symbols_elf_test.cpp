// The symbols layer on the workload binaries, checked against binutils' view of the same files
// (readelf, objdump, addr2line, c++filt), which share no code with libelf/libdw.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "base/strings.hpp"
#include "symbols/elf_image.hpp"
#include "symbols/perf_symbol_tree.hpp"
#include "symbols/symbol_table.hpp"
#include "symbols/symbolizer.hpp"
#include "symbols_support.hpp"

using namespace sonde;
using namespace sonde::test;
using sonde::session::DsoKind;

namespace {

symbols::SymbolizerOptions test_options() {
  symbols::SymbolizerOptions options;
  options.buildid_dir = "/nonexistent-sonde-buildid-dir";  // the user's cache stays out of it
  options.debuginfod = false;
  return options;
}

std::string basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

TEST(SymbolsElf, WorkloadFunctionsResolveAtTheirAddresses) {
  std::string path = workload_path("demo");
  auto functions = readelf_functions(path);
  auto loads = readelf_loads(path);
  ASSERT_TRUE(functions.count("hot_leaf") && functions.count("work")) << "readelf found no hot_leaf/work";
  Diagnostics notes;
  symbols::Symbolizer symbolizer(test_options(), &notes);
  auto dso = make_dso(0, DsoKind::user, path, readelf_build_id(path));
  for (const char* name : {"hot_leaf", "work", "run", "main"}) {
    const auto& facts = functions.at(name);
    ASSERT_GT(facts.size, 0u) << name;
    for (uint64_t vaddr : {facts.value, facts.value + facts.size / 2, facts.value + facts.size - 1}) {
      uint64_t offset = file_offset_of(loads, vaddr);
      const symbols::Symbol* symbol = symbolizer.find(dso, offset);
      ASSERT_NE(symbol, nullptr) << name << " at 0x" << std::hex << vaddr;
      EXPECT_EQ(symbol->name, name);
      EXPECT_EQ(symbol->start, facts.value) << name;
      EXPECT_EQ(symbol->size, facts.size) << name;
      EXPECT_EQ(symbolizer.elf_address(dso, offset), vaddr);
    }
  }
  EXPECT_EQ(symbolizer.elf_path(dso), path);
  EXPECT_TRUE(test::note_texts(notes).empty()) << test::note_texts(notes).front();
}

TEST(SymbolsElf, PltEntriesAreNamedAsObjdumpNamesThem) {
  std::string path = workload_path("demo");
  auto image = symbols::ElfImage::open(path);
  ASSERT_TRUE(image) << image.error().message;
  std::map<uint64_t, std::string> synthesized;
  for (const auto& entry : image->plt_symbols()) synthesized[entry.start] = entry.name + "@plt";
  // objdump labels each PLT entry "<name@plt>", from the same relocations perf reads.
  std::istringstream text(shell_output("objdump -d --section=.plt '" + path + "'"));
  std::string line;
  int checked = 0;
  auto loads = readelf_loads(path);
  auto functions = readelf_functions(path);
  symbols::Symbolizer symbolizer(test_options());
  auto dso = make_dso(0, DsoKind::user, path);
  while (std::getline(text, line)) {
    size_t open = line.find(" <"), close = line.find("@plt>:");
    if (open == std::string::npos || close == std::string::npos) continue;
    uint64_t vaddr = std::stoull(line.substr(0, open), nullptr, 16);
    EXPECT_EQ(synthesized[vaddr], line.substr(open + 2, close - open - 2) + "@plt");
    // perf 6.1 stretches the zero-size _init before .plt over it and names PLT samples after
    // _init (perf script prints "_init+0x40"), so the Symbolizer does too.
    const symbols::Symbol* symbol = symbolizer.find(dso, file_offset_of(loads, vaddr) + 4);
    ASSERT_NE(symbol, nullptr);
    EXPECT_EQ(symbol->name, "_init");
    EXPECT_EQ(symbol->start, functions.at("_init").value);
    ++checked;
  }
  EXPECT_GE(checked, 2) << "demo calls write and snprintf through its PLT";
}

TEST(SymbolsElf, AbsoluteSymbolsAreLeftOutAsPerfLeavesThem) {
  // libgcc_s names its symbol versions as absolute objects at 0 (GCC_4.7.0): taken in, one
  // would run on over the code before the first function, where perf shows [unknown].
  std::string path = "/usr/lib/x86_64-linux-gnu/libgcc_s.so.1";
  auto image = symbols::ElfImage::open(path);
  if (!image) GTEST_SKIP() << path << " is not on this machine";
  std::string absolute =
      shell_output("readelf -Ws '" + path + "' | awk '$7 == \"ABS\" && $8 != \"\" {print $8; exit}'");
  ASSERT_FALSE(trim(absolute).empty()) << "no absolute symbol to check in " << path;
  size_t symbols = 0;
  for (const auto& symbol : image->symbols(true)) {
    EXPECT_NE(symbol.name, std::string(trim(absolute)));
    ++symbols;
  }
  EXPECT_GT(symbols, 50u);
}

TEST(SymbolsElf, SrclineMatchesAddr2line) {
  std::string path = workload_path("demo");
  auto facts = readelf_functions(path).at("hot_leaf");
  auto loads = readelf_loads(path);
  std::string addresses;
  for (uint64_t vaddr = facts.value; vaddr < facts.value + facts.size; ++vaddr)
    addresses += fmt::format(" {:#x}", vaddr);
  auto expected = split(shell_output("addr2line -e '" + path + "'" + addresses), '\n');
  symbols::Symbolizer symbolizer(test_options());
  auto dso = make_dso(0, DsoKind::user, path);
  size_t index = 0;
  for (uint64_t vaddr = facts.value; vaddr < facts.value + facts.size; ++vaddr, ++index) {
    ASSERT_LT(index, expected.size());
    std::string oracle = basename(expected[index]);
    if (size_t paren = oracle.find(" ("); paren != std::string::npos) oracle.resize(paren);
    std::string ours = symbolizer.srcline(dso, file_offset_of(loads, vaddr));
    EXPECT_EQ(ours, oracle) << "at 0x" << std::hex << vaddr;
    // hot_leaf's body is lines 14-17 of demo.c.
    ASSERT_TRUE(ours.starts_with("demo.c:")) << ours;
    unsigned line = static_cast<unsigned>(std::stoul(ours.substr(7)));
    EXPECT_GE(line, 14u);
    EXPECT_LE(line, 17u);
  }
  EXPECT_EQ(symbolizer.debug_path(dso), path);
}

TEST(SymbolsElf, InlineFramesOfAnInlinedFunction) {
  std::string path = workload_path("inlined");
  auto facts = readelf_functions(path).at("blend");
  auto loads = readelf_loads(path);
  symbols::SymbolizerOptions options = test_options();
  options.inline_frames = true;
  symbols::Symbolizer symbolizer(options);
  auto dso = make_dso(0, DsoKind::user, path);
  int inlined = 0;
  for (uint64_t vaddr = facts.value; vaddr < facts.value + facts.size; ++vaddr) {
    auto frames = symbolizer.inline_frames(dso, file_offset_of(loads, vaddr));
    if (frames.empty()) continue;
    ++inlined;
    ASSERT_EQ(frames.size(), 2u);
    EXPECT_EQ(frames[0].function, "mix");
    EXPECT_EQ(basename(frames[0].file), "inlined.c");
    EXPECT_GE(frames[0].line, 5u);  // mix's body
    EXPECT_LE(frames[0].line, 10u);
    EXPECT_EQ(frames[1].function, "blend");
    EXPECT_EQ(frames[1].line, 14u);  // the call of mix in blend's loop
    // addr2line -i -f: "mix", "inlined.c:N", "blend", "inlined.c:14".
    auto oracle = split(shell_output(fmt::format("addr2line -i -f -e '{}' {:#x}", path, vaddr)), '\n');
    ASSERT_GE(oracle.size(), 4u);
    EXPECT_EQ(oracle[0], frames[0].function);
    EXPECT_EQ(basename(oracle[1]).substr(0, basename(oracle[1]).find(' ')),
              fmt::format("inlined.c:{}", frames[0].line));
    EXPECT_EQ(oracle[2], frames[1].function);
    EXPECT_EQ(basename(oracle[3]).substr(0, basename(oracle[3]).find(' ')),
              fmt::format("inlined.c:{}", frames[1].line));
  }
  EXPECT_GT(inlined, 0) << "no address of blend lies in mix's inlined code";
  // blend's symbol is still the function itself.
  const symbols::Symbol* symbol = symbolizer.find(dso, file_offset_of(loads, facts.value));
  ASSERT_NE(symbol, nullptr);
  EXPECT_EQ(symbol->name, "blend");
}

TEST(SymbolsElf, CxxSymbolsAreDemangledAsPerfPrintsThem) {
  std::string path = workload_path("cxx_shapes");
  auto functions = readelf_functions(path);
  auto loads = readelf_loads(path);
  const std::string spin = "_ZN3geo3BoxIlE4spinEi", area = "_ZN3geo4areaEil";
  ASSERT_TRUE(functions.count(spin) && functions.count(area));
  symbols::Symbolizer symbolizer(test_options());
  auto dso = make_dso(0, DsoKind::user, path);
  const symbols::Symbol* symbol = symbolizer.find(dso, file_offset_of(loads, functions.at(spin).value));
  ASSERT_NE(symbol, nullptr);
  // perf 6.1 prints the name without its parameters, as c++filt -p does.
  EXPECT_EQ(symbol->name, "geo::Box<long>::spin");
  EXPECT_EQ(symbol->name + "\n", shell_output("c++filt -p " + spin));
  symbol = symbolizer.find(dso, file_offset_of(loads, functions.at(area).value + 1));
  ASSERT_NE(symbol, nullptr);
  EXPECT_EQ(symbol->name, "geo::area");

  symbols::SymbolizerOptions raw = test_options();
  raw.demangle = false;
  symbols::Symbolizer mangled(raw);
  symbol = mangled.find(dso, file_offset_of(loads, functions.at(spin).value));
  ASSERT_NE(symbol, nullptr);
  EXPECT_EQ(symbol->name, spin);
}

TEST(SymbolsElf, ResolveAllAgreesWithFind) {
  std::string path = workload_path("demo");
  symbols::Symbolizer symbolizer(test_options());
  auto dso = make_dso(0, DsoKind::user, path);
  std::vector<uint64_t> addrs;
  for (uint64_t offset = 0; offset < 0x3000; ++offset) addrs.push_back(offset);
  for (int copy = 0; copy < 30; ++copy) addrs.insert(addrs.end(), addrs.begin(), addrs.begin() + 0x3000);
  auto all = symbolizer.resolve_all(dso, addrs);
  ASSERT_EQ(all.size(), addrs.size());
  size_t named = 0;
  for (size_t i = 0; i < addrs.size(); ++i) {
    EXPECT_EQ(all[i], symbolizer.find(dso, addrs[i])) << i;
    named += all[i] != nullptr;
  }
  EXPECT_GT(named, addrs.size() / 4);
}

TEST(SymbolsElf, PerfsSymbolTreeKeepsRedBlackOrder) {
  // Random inserts and erases: the in-order walk stays sorted and holds exactly the live
  // nodes, and a lookup only answers with a node starting at or before the address.
  symbols::PerfSymbolTree tree;
  std::vector<uint32_t> nodes;
  uint64_t seed = 12345;
  auto random = [&] { return (seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (int i = 0; i < 2000; ++i) {
    uint64_t start = random() % 500;
    nodes.push_back(tree.insert(start, start + 1 + random() % 8, static_cast<uint32_t>(i)));
    if (random() % 3 == 0) {
      uint32_t victim = nodes[random() % nodes.size()];
      if (tree.live(victim)) tree.erase(victim);
    }
  }
  uint64_t last = 0;
  size_t live = 0;
  for (uint32_t n = tree.first(); n != symbols::PerfSymbolTree::kNil; n = tree.next(n), ++live) {
    ASSERT_GE(tree.start(n), last);
    last = tree.start(n);
  }
  size_t expected = 0;
  for (uint32_t n : nodes) expected += tree.live(n);
  EXPECT_EQ(live, expected);
  for (uint64_t addr = 0; addr < 520; ++addr) {
    if (auto start = tree.find_start(addr)) {
      EXPECT_LE(*start, addr);
    }
  }
}

TEST(SymbolsElf, OverlapsInThePltAreSettledAsPerfSettlesThem) {
  // perf 6.1 names a sample in these workloads' .plt by the first symbol its tree search meets:
  // the zero-size _init stretched over demo's .plt, but clock_gettime@plt in deep_stacks
  // (seen in perf script of the bench's deep_stacks profile).
  auto name_at = [](const std::string& path,
                    const std::string& plt_name) -> std::pair<std::string, std::string> {
    auto image = symbols::ElfImage::open(path);
    if (!image) return {"", ""};
    auto table = symbols::SymbolTable::build(image->symbols(!image->has_symtab()));
    auto plt = image->plt_symbols();
    uint64_t address = 0;
    for (const auto& entry : plt)
      if (entry.name == plt_name) address = entry.start;
    for (auto& entry : plt) entry.name += "@plt";
    table.add_unchecked(plt);
    const symbols::Symbol* found = table.find(address);
    return {address ? "found" : "", found ? found->name : ""};
  };
  auto demo = name_at(workload_path("demo"), "write");
  ASSERT_EQ(demo.first, "found");
  EXPECT_EQ(demo.second, "_init");
  auto deep = name_at(workload_path("deep_stacks"), "clock_gettime");
  ASSERT_EQ(deep.first, "found");
  EXPECT_EQ(deep.second, "clock_gettime@plt");
}
