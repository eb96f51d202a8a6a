#include "symbols/disassembler.hpp"

#include <capstone/capstone.h>
#include <elf.h>
#include <fmt/format.h>

namespace sonde::symbols {

Result<std::vector<Instruction>> disassemble(std::string_view bytes, uint64_t address, uint16_t machine,
                                             bool intel_syntax) {
  cs_arch arch;
  cs_mode mode;
  if (machine == EM_X86_64) {
    arch = CS_ARCH_X86;
    mode = CS_MODE_64;
  } else if (machine == EM_AARCH64) {
    arch = CS_ARCH_ARM64;
    mode = CS_MODE_ARM;
  } else {
    return failf("cannot disassemble code of ELF machine {} (sonde reads x86-64 and AArch64)", machine);
  }
  csh handle;
  if (cs_open(arch, mode, &handle) != CS_ERR_OK) return fail("capstone could not start a disassembler");
  if (arch == CS_ARCH_X86)
    cs_option(handle, CS_OPT_SYNTAX, intel_syntax ? CS_OPT_SYNTAX_INTEL : CS_OPT_SYNTAX_ATT);
  std::vector<Instruction> out;
  const auto* code = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t left = bytes.size();
  uint64_t at = address;
  cs_insn* insn = cs_malloc(handle);
  while (left > 0 && cs_disasm_iter(handle, &code, &left, &at, insn))
    out.push_back({insn->address, insn->size, insn->mnemonic, insn->op_str});
  cs_free(insn, 1);
  cs_close(&handle);
  return out;
}

}  // namespace sonde::symbols
