#include "symbols/disassembler.hpp"

#include <capstone/capstone.h>
#include <elf.h>
#include <fmt/format.h>

#include <algorithm>

namespace sonde::symbols {

namespace {

// Mnemonics whose operand-size suffix objdump leaves out when a register operand gives the size
// (capstone 4 always writes it): "movl %eax, %ecx" is objdump's "mov %eax,%ecx".
constexpr std::string_view kSizedByRegister[] = {
    "mov",   "add",    "sub",   "and",    "or",    "xor",    "cmp",   "test",   "lea",   "imul",
    "inc",   "dec",    "neg",   "not",    "adc",   "sbb",    "shl",   "shr",    "sar",   "sal",
    "rol",   "ror",    "rcl",   "rcr",    "xchg",  "bt",     "bts",   "btr",    "btc",   "cmpxchg",
    "xadd",  "bsf",    "bsr",   "popcnt", "lzcnt", "tzcnt",  "mul",   "div",    "idiv",  "bswap",
    "cmove", "cmovne", "cmova", "cmovae", "cmovb", "cmovbe", "cmovg", "cmovge", "cmovl", "cmovle",
    "cmovs", "cmovns", "cmovo", "cmovno", "cmovp", "cmovnp"};

// Mnemonics objdump writes without their 64-bit suffix whatever the operands.
std::string_view without_implied_suffix(std::string_view mnemonic) {
  for (std::string_view implied : {"callq", "retq", "jmpq", "pushq", "popq", "leaveq", "movabsq"})
    if (mnemonic == implied) return mnemonic.substr(0, mnemonic.size() - 1);
  return mnemonic;
}

bool is_sized_by_register(std::string_view base) {
  for (std::string_view known : kSizedByRegister)
    if (base == known) return true;
  return false;
}

// objdump's AT&T spelling of one capstone instruction (see the header).
void spell_as_objdump(const cs_insn& insn, csh handle, Instruction& out) {
  const cs_x86& x86 = insn.detail->x86;
  std::string operands;
  for (const char* c = insn.op_str; *c; ++c)  // "a, b" -> "a,b"
    if (!(*c == ' ' && c != insn.op_str && c[-1] == ',')) operands += *c;
  bool has_register = false, vector_register = operands.find("mm") != std::string::npos;
  bool wide_register = false;  // a 64-bit general register: capstone's "movd %r13, %xmm2" is movq
  bool relative_branch = cs_insn_group(handle, &insn, CS_GRP_BRANCH_RELATIVE);
  for (uint8_t i = 0; i < x86.op_count; ++i) {
    const cs_x86_op& op = x86.operands[i];
    if (op.type == X86_OP_REG) {
      has_register = true;
      wide_register |= op.size == 8 && std::string_view(cs_reg_name(handle, op.reg)).starts_with("r");
    }
    if (op.type == X86_OP_IMM && relative_branch) {
      out.branch_target = static_cast<uint64_t>(op.imm);
      operands = fmt::format("{:x}", out.branch_target);
    } else if (op.type == X86_OP_IMM) {
      // The immediate in hex at its operand's size, as objdump writes "$0xffffffffffffff80".
      size_t dollar = operands.find('$');
      if (dollar == std::string::npos) continue;
      size_t end = operands.find(',', dollar);
      if (end == std::string::npos) end = operands.size();
      uint64_t value = static_cast<uint64_t>(op.imm);
      if (op.size > 0 && op.size < 8) value &= (uint64_t{1} << (op.size * 8)) - 1;
      operands.replace(dollar, end - dollar, fmt::format("${:#x}", value));
    } else if (op.type == X86_OP_MEM) {
      if (op.mem.base == X86_REG_RIP)
        out.memory_target = insn.address + insn.size + static_cast<uint64_t>(op.mem.disp);
      size_t open = operands.find('(');
      if (open == std::string::npos) continue;
      // The displacement in hex (capstone writes small ones in decimal: "1(%rcx)").
      size_t disp_start = open;
      while (disp_start > 0 &&
             std::string_view(",:*").find(operands[disp_start - 1]) == std::string_view::npos)
        --disp_start;
      if (op.mem.disp != 0) {
        std::string disp = op.mem.disp < 0 ? fmt::format("-{:#x}", -static_cast<uint64_t>(op.mem.disp))
                                           : fmt::format("{:#x}", op.mem.disp);
        operands.replace(disp_start, open - disp_start, disp);
        open = disp_start + disp.size();
      }
      size_t close = operands.find(')', open);
      if (op.mem.index != X86_REG_INVALID && op.mem.scale == 1 && close != std::string::npos &&
          std::count(operands.begin() + static_cast<long>(open), operands.begin() + static_cast<long>(close),
                     ',') == 1)
        operands.insert(close, ",1");
      // A displacement that is encoded though zero: objdump writes it ("0x0(%rax,%rax,1)"), as
      // for an index without a base, which always has one.
      uint8_t mod = x86.modrm >> 6;
      bool encoded =
          mod == 1 || mod == 2 || (op.mem.base == X86_REG_INVALID && op.mem.index != X86_REG_INVALID);
      if (op.mem.disp == 0 && op.mem.base != X86_REG_RIP && encoded &&
          (open == 0 || operands[open - 1] == ',' || operands[open - 1] == ':'))
        operands.insert(open, "0x0");
    }
  }
  // The shift-by-one opcodes have no immediate: objdump writes "sar %rbx", capstone "$1, %rbx".
  if ((x86.opcode[0] == 0xd0 || x86.opcode[0] == 0xd1) && operands.starts_with("$0x1,")) operands.erase(0, 5);
  std::string_view mnemonic = without_implied_suffix(insn.mnemonic);
  if (has_register && !vector_register && mnemonic.size() > 1 &&
      std::string_view("bwlq").find(mnemonic.back()) != std::string_view::npos &&
      is_sized_by_register(mnemonic.substr(0, mnemonic.size() - 1)))
    mnemonic.remove_suffix(1);
  out.mnemonic = mnemonic;
  if (mnemonic == "movd" && wide_register) out.mnemonic = "movq";
  if (insn.size == 2 && insn.bytes[0] == 0x66 && insn.bytes[1] == 0x90) {  // objdump's two-byte nop
    out.mnemonic = "xchg";
    operands = "%ax,%ax";
  }
  // A segment override on a padding nop: objdump writes it as a prefix ("cs nopw 0x0(...)").
  if (mnemonic.starts_with("nop") && operands.starts_with("%cs:")) {
    out.mnemonic = "cs " + out.mnemonic;
    operands.erase(0, 4);
  }
  out.operands = std::move(operands);
}

}  // namespace

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
  bool objdump_spelling = arch == CS_ARCH_X86 && !intel_syntax;
  if (arch == CS_ARCH_X86)
    cs_option(handle, CS_OPT_SYNTAX, intel_syntax ? CS_OPT_SYNTAX_INTEL : CS_OPT_SYNTAX_ATT);
  if (objdump_spelling) cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
  std::vector<Instruction> out;
  const auto* code = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t left = bytes.size();
  uint64_t at = address;
  cs_insn* insn = cs_malloc(handle);
  while (left > 0 && cs_disasm_iter(handle, &code, &left, &at, insn)) {
    Instruction& instruction = out.emplace_back();
    instruction.address = insn->address;
    instruction.size = insn->size;
    if (objdump_spelling) {
      spell_as_objdump(*insn, handle, instruction);
    } else {
      instruction.mnemonic = insn->mnemonic;
      instruction.operands = insn->op_str;
    }
  }
  cs_free(insn, 1);
  cs_close(&handle);
  return out;
}

}  // namespace sonde::symbols
