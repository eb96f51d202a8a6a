#pragma once
// Machine code as text, in process with capstone (no objdump, no child per function): x86-64 in
// AT&T syntax spelled as objdump prints it (perf annotate's default), Intel on request, AArch64
// in its one syntax. Capstone 4 spells AT&T differently from objdump ("movl $1, %eax" where
// objdump prints "mov $0x1,%eax"); the x86 text is rewritten to objdump's spelling where the
// instruction's details say how: operand-size suffixes dropped where a register operand gives
// the size, immediates in hex at their operand's size, no space after commas, the scale of an
// index and an encoded zero displacement written out. Branch targets and RIP-relative addresses
// are given as numbers for the caller to name.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::symbols {

struct Instruction {
  uint64_t address = 0;
  uint16_t size = 0;
  std::string mnemonic, operands;
  // A direct jump or call: its target (the operands are then its hex address, as objdump
  // prints it before "<symbol+off>"); 0 otherwise.
  uint64_t branch_target = 0;
  // A RIP-relative memory operand: the address it names (objdump's "# addr <symbol+off>"
  // comment); 0 otherwise.
  uint64_t memory_target = 0;
};

// `bytes` decoded from `address` on, for the ELF machine `machine` (EM_X86_64, EM_AARCH64). An
// undecodable byte ends the listing there (data in the text, a truncated function, or an
// instruction capstone 4 does not know: some AVX-512 forms); the caller says so.
Result<std::vector<Instruction>> disassemble(std::string_view bytes, uint64_t address, uint16_t machine,
                                             bool intel_syntax = false);

}  // namespace sonde::symbols
