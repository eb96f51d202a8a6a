#pragma once
// x86-64's sample registers as perf names them (the kernel's PERF_REG_X86_* bits): what
// `record -I`/`--user-regs` ask for, and what `script -F iregs,uregs` and the raw dump print.
#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace sonde::format {

// perf's PERF_REGS_MASK on x86-64: the general registers, IP, FLAGS, CS and SS (not DS to GS,
// which the kernel does not sample in 64-bit mode). Both -I and --user-regs default to it.
inline constexpr uint64_t kX86SampleRegs = 0xff0fff;

// The name of bit `reg` ("AX", "R15", "XMM3"), "unknown" for a bit x86-64 does not define.
std::string_view x86_register_name(unsigned reg);

// "AX,BX,r8" (perf's case-insensitive names, comma separated) as a mask; empty: kX86SampleRegs.
// An unknown name is an error naming it, as perf's "Unknown register" warning does.
Result<uint64_t> parse_register_list(std::string_view list);

// perf's "available registers: AX BX ... R15 " line (record -I? and --user-regs=?).
std::string available_registers_text();

}  // namespace sonde::format
