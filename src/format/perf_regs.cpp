#include "format/perf_regs.hpp"

#include <fmt/format.h>

#include <cctype>
#include <iterator>

#include "base/strings.hpp"

namespace sonde::format {

std::string_view x86_register_name(unsigned reg) {
  static constexpr std::string_view kNames[] = {"AX", "BX",    "CX",  "DX",  "SI",  "DI",  "BP",  "SP",
                                                "IP", "FLAGS", "CS",  "SS",  "DS",  "ES",  "FS",  "GS",
                                                "R8", "R9",    "R10", "R11", "R12", "R13", "R14", "R15"};
  static constexpr std::string_view kXmm[] = {"XMM0",  "XMM1",  "XMM2",  "XMM3", "XMM4",  "XMM5",
                                              "XMM6",  "XMM7",  "XMM8",  "XMM9", "XMM10", "XMM11",
                                              "XMM12", "XMM13", "XMM14", "XMM15"};
  if (reg < std::size(kNames)) return kNames[reg];
  if (reg >= 32 && reg < 64) return kXmm[(reg - 32) / 2];  // two bits per XMM register
  return "unknown";
}

namespace {

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) != static_cast<unsigned char>(b[i])) return false;
  return true;
}

}  // namespace

Result<uint64_t> parse_register_list(std::string_view list) {
  if (list.empty()) return kX86SampleRegs;
  uint64_t mask = 0;
  for (std::string_view name : split(list, ',')) {
    bool known = false;
    for (unsigned reg = 0; reg < 24 && !known; ++reg)
      if ((kX86SampleRegs >> reg & 1) && same_name(name, x86_register_name(reg))) {
        mask |= uint64_t{1} << reg;
        known = true;
      }
    if (!known)
      return fail(
          fmt::format("unknown register \"{}\"; '?' lists the available ones (sonde record -I?)", name));
  }
  return mask;
}

std::string available_registers_text() {
  std::string text = "available registers: ";
  for (unsigned reg = 0; reg < 24; ++reg)
    if (kX86SampleRegs >> reg & 1) text += fmt::format("{} ", x86_register_name(reg));
  return text;
}

}  // namespace sonde::format
