#include "symbols/disassembler.hpp"

#include <capstone/capstone.h>
#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

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

// The two x86 fixes objdump's spellings share: movd of a 64-bit register is movq, and 66 90 is
// written as the xchg it encodes.
bool objdump_special_form(const cs_insn& insn, std::string_view mnemonic, bool wide_register, bool intel,
                          Instruction& out) {
  if (insn.size == 2 && insn.bytes[0] == 0x66 && insn.bytes[1] == 0x90) {
    out.mnemonic = "xchg";
    out.operands = intel ? "ax,ax" : "%ax,%ax";
    return true;
  }
  if (mnemonic == "movd" && wide_register) out.mnemonic = "movq";
  return false;
}

// objdump's AT&T spelling of one capstone instruction (see the header).
void spell_as_objdump_att(const cs_insn& insn, csh handle, Instruction& out) {
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
  out.operands = operands;
  if (objdump_special_form(insn, mnemonic, wide_register, false, out)) return;
  // A segment override on a padding nop: objdump writes it as a prefix ("cs nopw 0x0(...)").
  if (mnemonic.starts_with("nop") && operands.starts_with("%cs:")) {
    out.mnemonic = "cs " + out.mnemonic;
    operands.erase(0, 4);
  }
  out.operands = std::move(operands);
}

// objdump -M intel's spelling: each operand rebuilt from the details — registers as named,
// immediates in hex at their size, memory as "QWORD PTR [base+index*scale+disp]" with the size
// word capstone gives upper-cased.
void spell_as_objdump_intel(const cs_insn& insn, csh handle, Instruction& out) {
  const cs_x86& x86 = insn.detail->x86;
  std::vector<std::string> texts;  // capstone's text of each operand
  std::string_view rest = insn.op_str;
  while (!rest.empty()) {
    size_t comma = rest.find(", ");
    texts.emplace_back(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
  }
  bool relative_branch = cs_insn_group(handle, &insn, CS_GRP_BRANCH_RELATIVE);
  bool shift_by_one = x86.opcode[0] == 0xd0 || x86.opcode[0] == 0xd1;
  bool wide_register = false;
  std::string operands;
  for (uint8_t i = 0; i < x86.op_count; ++i) {
    const cs_x86_op& op = x86.operands[i];
    std::string text = i < texts.size() ? texts[i] : "";
    if (op.type == X86_OP_REG) {
      wide_register |= op.size == 8 && std::string_view(cs_reg_name(handle, op.reg)).starts_with("r");
    } else if (op.type == X86_OP_IMM && relative_branch) {
      out.branch_target = static_cast<uint64_t>(op.imm);
      text = fmt::format("{:x}", out.branch_target);
    } else if (op.type == X86_OP_IMM && !shift_by_one) {
      uint64_t value = static_cast<uint64_t>(op.imm);
      if (op.size > 0 && op.size < 8) value &= (uint64_t{1} << (op.size * 8)) - 1;
      text = fmt::format("{:#x}", value);
    } else if (op.type == X86_OP_MEM) {
      size_t ptr = text.find("ptr ");
      std::string size_word = text.substr(0, ptr == std::string::npos ? 0 : ptr + 4);
      for (char& c : size_word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      std::string address;
      // A segment on a padding nop becomes objdump's "cs" prefix (below).
      if (op.mem.segment != X86_REG_INVALID && !std::string_view(insn.mnemonic).starts_with("nop"))
        address = std::string(cs_reg_name(handle, op.mem.segment)) + ":";
      std::string inside;
      if (op.mem.base != X86_REG_INVALID) inside = cs_reg_name(handle, op.mem.base);
      if (op.mem.index != X86_REG_INVALID)
        inside += fmt::format("{}{}*{}", inside.empty() ? "" : "+", cs_reg_name(handle, op.mem.index),
                              op.mem.scale);
      uint8_t mod = x86.modrm >> 6;
      bool encoded =
          mod == 1 || mod == 2 || (op.mem.base == X86_REG_INVALID && op.mem.index != X86_REG_INVALID);
      if (op.mem.base == X86_REG_RIP)
        out.memory_target = insn.address + insn.size + static_cast<uint64_t>(op.mem.disp);
      if (op.mem.disp != 0 || encoded)
        inside += op.mem.disp < 0 ? fmt::format("-{:#x}", -static_cast<uint64_t>(op.mem.disp))
                                  : fmt::format("{}{:#x}", inside.empty() ? "" : "+", op.mem.disp);
      // An absolute address has no brackets ("fs:0x1c").
      bool absolute = op.mem.base == X86_REG_INVALID && op.mem.index == X86_REG_INVALID;
      text = size_word + address + (absolute ? inside : "[" + inside + "]");
    }
    operands += (operands.empty() ? "" : ",") + text;
  }
  out.mnemonic = insn.mnemonic;
  out.operands = std::move(operands);
  if (objdump_special_form(insn, out.mnemonic, wide_register, true, out)) return;
  for (uint8_t i = 0; i < x86.op_count; ++i)
    if (out.mnemonic.starts_with("nop") && x86.operands[i].type == X86_OP_MEM &&
        x86.operands[i].mem.segment == X86_REG_CS)
      out.mnemonic = "cs " + out.mnemonic;
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
  bool objdump_spelling = arch == CS_ARCH_X86;
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
      if (intel_syntax)
        spell_as_objdump_intel(*insn, handle, instruction);
      else
        spell_as_objdump_att(*insn, handle, instruction);
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
