#pragma once
// One function's disassembly as `objdump -l -d --no-show-raw-insn -S -C --start-address=S
// --stop-address=E FILE` prints it, the text perf 6.1's annotate reads: the section and symbol
// headers, before each instruction the function name and "file:line" lines when they change
// (-l) and the source lines not shown yet with up to five lines of context (-S, objdump's
// SHOW_PRECEDING_CONTEXT_LINES), then "addr:\tinstruction". Made in process — capstone for the
// code, libdw's line table and scopes for -l and -S — so that perf's reading of objdump's
// output (perf_annotation) applies to it unchanged. The "FILE: file format" line perf drops is
// not made.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde::symbols {
class DwarfInfo;
class ElfImage;
struct Instruction;
}  // namespace sonde::symbols

namespace sonde::analysis {

// Beyond it, a symbol's size is not to be believed.
inline constexpr uint64_t kMaxFunctionSize = 1 << 20;

struct ListedFunction {
  std::string name;             // the symbol, as objdump's "<name>:" header shows it
  uint64_t start = 0, end = 0;  // ELF virtual addresses, [start, end)
};

// Names an address for objdump's "<symbol+0xoff>" (branch targets, RIP-relative comments); ""
// when no symbol covers it.
using AddressNamer = std::function<std::string(uint64_t address)>;

// objdump's names for addresses of `code`: the nearest symbol at or before an address (of
// several at one address, functions first, then globals, then by name), PLT entries as
// "name@plt". A stripped file's names come from its separate debug file (`debug`, or nullptr),
// as objdump takes them.
AddressNamer objdump_namer(const symbols::ElfImage& code, const symbols::ElfImage* debug);

// What perf's objdump command line asks for besides -l -d.
struct ListingStyle {
  bool source = true;      // -S (perf annotate --no-source drops it)
  bool raw_bytes = false;  // no --no-show-raw-insn (perf annotate --asm-raw): x86's bytes, seven a line
  bool intel = false;      // -M intel
};

// One instruction's text as objdump prints it after "addr:\t": the mnemonic padded to six
// columns, the operands, a branch target and a RIP-relative comment named by `namer`.
std::string objdump_text(const symbols::Instruction& instruction, const AddressNamer& namer);

struct ObjdumpListing {
  std::vector<std::string> lines;
  uint64_t decoded_end = 0;  // where decoding stopped: the function's end unless capstone gave up
};

// `code` holds the bytes, `dwarf` (nullptr without DWARF) the line table and function names.
Result<ObjdumpListing> objdump_listing(const symbols::ElfImage& code, symbols::DwarfInfo* dwarf,
                                       const ListedFunction& function, const AddressNamer& namer,
                                       const ListingStyle& style = {});

}  // namespace sonde::analysis
