#pragma once
// USDT (SystemTap SDT) markers: the .note.stapsdt notes that <sys/sdt.h> (and dtrace -G) leave in
// an ELF file, one per marker site, and their conversion to uprobe_events lines as perf 6.1 makes
// them for its "sdt_PROVIDER:NAME" events:
//   p:sdt_PROVIDER/NAME PATH:0xOFFSET[(0xSEMAPHORE_OFFSET)] arg1=%di:s32 arg3=-8(%bp):u64 ...
//
// A note (type 3, owner "stapsdt", in the non-allocated SHT_NOTE section .note.stapsdt) holds
// three addresses of the ELF class's size (the marker's pc, the link-time address of the
// .stapsdt.base section, the semaphore or 0), then "provider\0name\0arguments\0". Arguments are
// space-separated "SIZE@OPERAND" in the assembler's syntax, SIZE negative for signed values
// ("-4@%edi", "8@-8(%rbp)").
#include <gelf.h>
#include <libelf.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::probe {

struct SdtNote {
  std::string provider, name;
  // The marker's ELF virtual address, adjusted for prelink: moved by as much as .stapsdt.base was
  // moved from the address the note records for it.
  uint64_t pc = 0;
  uint64_t semaphore = 0;  // the semaphore's ELF virtual address (an unsigned short), 0 when none
  std::string arguments;   // as stored, e.g. "-4@%edi 8@-8(%rbp)"; "" when none
};

// Every note of .note.stapsdt, in file order (64-bit and 32-bit ELF). Like perf: an allocated
// or non-SHT_NOTE .note.stapsdt holds none, reading stops at the first "stapsdt" note of another
// type than 3, and a note too short for its addresses and provider fails the whole file.
Result<std::vector<SdtNote>> read_sdt_notes(Elf* elf);

// The file offset of an ELF virtual address, through the PT_LOAD segment whose file bytes hold
// it; nullopt when none does.
std::optional<uint64_t> vaddr_to_file_offset(Elf* elf, uint64_t vaddr);

// The offset perf writes for the probe (uprobe_events' "PATH:0xOFFSET"): the pc moved by the
// .stapsdt.base section's address-to-offset delta (perf's prelink adjustment yields a file
// offset). Without that section (no <sys/sdt.h> file lacks it), through the PT_LOAD segments,
// where perf would write the address itself.
std::optional<uint64_t> sdt_probe_file_offset(Elf* elf, const SdtNote& note);

// The semaphore as uprobe_events takes it ("(0xREF_CTR_OFFSET)"): a file offset. perf moves the
// address by the .probes section's address-to-offset delta whatever section holds it (dtrace -G
// and sys/sdt.h users put semaphores in .probes); without .probes, through the PT_LOAD segments,
// where perf would write the address itself. nullopt when the note has no semaphore (or it is
// outside the file's bytes).
std::optional<uint64_t> semaphore_file_offset(Elf* elf, const SdtNote& note);

// One argument ("-4@%edi") as the kernel's uprobe fetch-arg, as perf 6.1 on x86 converts it:
// "%di:s32". The size picks the type: 1,2,4,8 -> u8..u64, -1,-2,-4,-8 -> s8..s64, other sizes
// from -8 to 8 (and no "SIZE@") none. The operand must be [+-][DIGITS][(]%reg[)] with a register
// name of at most 6 characters; gas names become uprobe names (%eax, %rax, %al, %ah -> %ax; %r8d,
// %r8w, %r8b -> %r8; others as written); a displacement becomes "+N"/"-N", "(%reg)" "+0(%reg)".
// nullopt, with perf's reason in *why, for what perf skips: constants ("$5"), base+index
// ("(%rax,%rsi,8)"), symbols ("sym(%rip)"), hex displacements, and sizes outside -8..8 (which
// perf does not skip: they fail every probe of the file, see sdt_fetchargs).
std::optional<std::string> sdt_argument_to_fetcharg(std::string_view argument, std::string* why);

// Every argument of the note as perf names it: "arg1=%di:s32", ... numbered by position among
// all the note's arguments, so a skipped one leaves a gap ("arg1=%di:s32 arg3=%ax:s16"). No
// arguments when the string is empty or starts with ':'. Fails, as perf's whole file does, on
// a size outside -8..8.
Result<std::vector<std::string>> sdt_fetchargs(const SdtNote& note);

// perf's event group for the note: "sdt_" + provider.
std::string sdt_event_group(const SdtNote& note);

}  // namespace sonde::probe
