#pragma once
// Machine code as text, in process with capstone (no objdump, no child per function): x86-64 in
// AT&T syntax as objdump and perf annotate print it by default (Intel on request), AArch64 in
// its one syntax.
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
};

// `bytes` decoded from `address` on, for the ELF machine `machine` (EM_X86_64, EM_AARCH64). An
// undecodable byte ends the listing there (data in the text, or a truncated function).
Result<std::vector<Instruction>> disassemble(std::string_view bytes, uint64_t address, uint16_t machine,
                                             bool intel_syntax = false);

}  // namespace sonde::symbols
