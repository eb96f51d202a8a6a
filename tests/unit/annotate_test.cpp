// perf annotate's reading of objdump's text, and capstone's x86 text spelled as objdump's.
#include <elf.h>
#include <gtest/gtest.h>

#include "analysis/annotate/perf_annotation.hpp"
#include "symbols/disassembler.hpp"

namespace sonde {
namespace {

TEST(PerfAnnotation, ReadsObjdumpAsPerfDoes) {
  std::vector<std::string> lines = {"",
                                    "Disassembly of section .text:",
                                    "0000000000001260 <f>:",
                                    "f():",
                                    "/src/f.c:13",  // absolute: sets the counter, not shown
                                    "  int s = 0;",
                                    "\tfor (;;) {",
                                    "    1260:\ttest   %esi,%esi",
                                    "./rel/f.c:14 (discriminator 2)",  // relative: shown
                                    "    1262:\tret",
                                    "    1300:\tnop"};  // outside the symbol: text
  std::map<uint64_t, analysis::AddressHits> hits = {{0, {1, 10}}, {1, {2, 20}}, {2, {3, 30}}};
  analysis::PerfAnnotation a = analysis::perf_annotation(lines, 0x1260, 3, hits);
  ASSERT_EQ(a.lines.size(), 10u);
  EXPECT_EQ(a.lines[1].text, "Disassembly of section .text:");
  EXPECT_EQ(a.lines[1].line_nr, 1);
  EXPECT_EQ(a.lines[4].text, "int s = 0;");
  EXPECT_EQ(a.lines[4].line_nr, 13);
  EXPECT_EQ(a.lines[5].text, "for (;;) {");
  EXPECT_EQ(a.lines[6].offset, 0);
  EXPECT_EQ(a.lines[6].text, "   test   %esi,%esi");  // the tab after "1260:" as spaces
  EXPECT_EQ(a.lines[6].line_nr, 15);                  // instructions advance the counter too
  EXPECT_EQ(a.lines[6].hits.samples, 3u);             // offsets 0 and 1, up to the next
  EXPECT_EQ(a.lines[7].text, "./rel/f.c:14 (discriminator 2)");
  EXPECT_EQ(a.lines[8].offset, 2);
  EXPECT_EQ(a.lines[8].hits.period, 30u);
  EXPECT_EQ(a.lines[9].offset, -1);
  EXPECT_EQ(a.total.samples, 6u);
  EXPECT_EQ(a.address_width, 4);
}

std::string text(const char* bytes, size_t size, uint64_t address = 0x1000) {
  auto listed = symbols::disassemble(std::string_view(bytes, size), address, EM_X86_64);
  if (!listed || listed->empty()) return "?";
  const symbols::Instruction& i = listed->front();
  return i.operands.empty() ? i.mnemonic : i.mnemonic + " " + i.operands;
}

TEST(Disassembler, SpellsX86AsObjdump) {
  EXPECT_EQ(text("\xb8\xe8\x03\x00\x00", 5), "mov $0x3e8,%eax");
  EXPECT_EQ(text("\x83\xe8\x01", 3), "sub $0x1,%eax");
  EXPECT_EQ(text("\x55", 1), "push %rbp");
  EXPECT_EQ(text("\xc3", 1), "ret");
  EXPECT_EQ(text("\x48\x83\xe4\xf0", 4), "and $0xfffffffffffffff0,%rsp");
  EXPECT_EQ(text("\x0f\xb6\x51\x01", 4), "movzbl 0x1(%rcx),%edx");
  EXPECT_EQ(text("\x66\x0f\x1f\x44\x00\x00", 6), "nopw 0x0(%rax,%rax,1)");
  EXPECT_EQ(text("\x48\x8d\x14\xc5\x00\x00\x00\x00", 8), "lea 0x0(,%rax,8),%rdx");
  EXPECT_EQ(text("\x48\xd1\xfb", 3), "sar %rbx");
  EXPECT_EQ(text("\x66\x90", 2), "xchg %ax,%ax");
  EXPECT_EQ(text("\x66\x49\x0f\x6e\xd5", 5), "movq %r13,%xmm2");
  EXPECT_EQ(text("\x48\x83\x05\xcf\xa0\x02\x00\x01", 8), "addq $0x1,0x2a0cf(%rip)");
}

std::string intel(const char* bytes, size_t size) {
  auto listed = symbols::disassemble(std::string_view(bytes, size), 0x1000, EM_X86_64, true);
  if (!listed || listed->empty()) return "?";
  const symbols::Instruction& i = listed->front();
  return i.operands.empty() ? i.mnemonic : i.mnemonic + " " + i.operands;
}

TEST(Disassembler, SpellsIntelAsObjdump) {
  EXPECT_EQ(intel("\x48\x89\x4c\x24\x10", 5), "mov QWORD PTR [rsp+0x10],rcx");
  EXPECT_EQ(intel("\x0f\xb6\x51\x01", 4), "movzx edx,BYTE PTR [rcx+0x1]");
  EXPECT_EQ(intel("\x0f\x1f\x44\x00\x00", 5), "nop DWORD PTR [rax+rax*1+0x0]");
  EXPECT_EQ(intel("\x48\x83\xc1\x02", 4), "add rcx,0x2");
  EXPECT_EQ(intel("\x48\x8b\x45\xf8", 4), "mov rax,QWORD PTR [rbp-0x8]");
  EXPECT_EQ(intel("\x64\x48\x8b\x04\x25\x10\x00\x00\x00", 9), "mov rax,QWORD PTR fs:0x10");
  EXPECT_EQ(intel("\x66\x2e\x0f\x1f\x84\x00\x00\x00\x00\x00", 10), "cs nop WORD PTR [rax+rax*1+0x0]");
  EXPECT_EQ(intel("\x48\xd1\xfb", 3), "sar rbx,1");
}

TEST(Disassembler, GivesTargetsToName) {
  auto call = symbols::disassemble(std::string_view("\xe8\xfb\xff\xff\xff", 5), 0x1000, EM_X86_64);
  ASSERT_TRUE(call && call->size() == 1);
  EXPECT_EQ((*call)[0].mnemonic, "call");
  EXPECT_EQ((*call)[0].branch_target, 0x1000u);
  auto lea = symbols::disassemble(std::string_view("\x48\x8d\x3d\x3c\x0e\x00\x00", 7), 0x11c8, EM_X86_64);
  ASSERT_TRUE(lea && lea->size() == 1);
  EXPECT_EQ((*lea)[0].memory_target, 0x11c8u + 7 + 0xe3c);
}

}  // namespace
}  // namespace sonde
