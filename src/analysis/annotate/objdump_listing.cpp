#include "analysis/annotate/objdump_listing.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>

#include "symbols/demangle.hpp"
#include "symbols/disassembler.hpp"
#include "symbols/dwarf_info.hpp"
#include "symbols/elf_image.hpp"

namespace sonde::analysis {

namespace {

constexpr unsigned kPrecedingContextLines = 5;  // objdump's SHOW_PRECEDING_CONTEXT_LINES
constexpr size_t kRawBytesPerLine = 7;          // objdump's for x86

// A source file as objdump -S shows it: its lines, and how far they have been shown.
struct ShownFile {
  std::vector<std::string> lines;  // empty when the file could not be read
  bool readable = false;
  unsigned max_printed = 0, last_line = 0;
};

ShownFile read_source(const std::string& path) {
  ShownFile file;
  std::ifstream in(path);
  if (!in) return file;
  file.readable = true;
  std::string text;
  while (std::getline(in, text)) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    file.lines.push_back(std::move(text));
  }
  return file;
}

// objdump's show_line: what -l and -S print before the instruction at `address`.
class LineShower {
 public:
  LineShower(symbols::DwarfInfo* dwarf, const ListedFunction& function, const AddressNamer& namer,
             bool with_source, std::vector<std::string>& out)
      : dwarf_(dwarf), namer_(namer), with_source_(with_source), out_(out) {
    if (dwarf_ == nullptr) return;
    scopes_ = dwarf_->function_scopes(function.start, function.end);
    compilation_dir_ = dwarf_->compilation_dir(function.start);
  }

  void before(uint64_t address) {
    if (dwarf_ == nullptr) return;
    auto where = dwarf_->line(address);
    if (!where) return;  // objdump's bfd_find_nearest_line found nothing: nothing printed
    // libdw joins a file to its directory; BFD also puts a relative path under the unit's
    // compilation directory ("./elf" + "./elf/dl-lookup.c" in Debian's glibc).
    if (!where->file.empty() && where->file[0] != '/' && !compilation_dir_.empty())
      where->file = compilation_dir_ + "/" + where->file;
    std::string function = innermost_function(address);
    if (!function.empty() && function != previous_function_) {
      auto demangled = function.starts_with("_Z") ? symbols::demangle_cxx_full(function) : std::nullopt;
      out_.push_back(demangled ? *demangled + ":" : function + "():");
      previous_line_ = -1;
    }
    int line = static_cast<int>(where->line);
    if (line > 0 && (line != previous_line_ || where->discriminator != previous_discriminator_))
      out_.push_back(where->discriminator > 0
                         ? fmt::format("{}:{} (discriminator {})", where->file, line, where->discriminator)
                         : fmt::format("{}:{}", where->file, line));
    if (with_source_ && line > 0 && !where->file.empty()) show_source(where->file, where->line);
    if (!function.empty()) previous_function_ = std::move(function);
    if (line > 0) previous_line_ = line;
    previous_discriminator_ = where->discriminator;
  }

 private:
  // BFD's choice: the smallest range holding the address, the innermost of equal ones.
  std::string innermost_function(uint64_t address) const {
    const symbols::FunctionScope* best = nullptr;
    for (const symbols::FunctionScope& scope : scopes_) {
      if (address < scope.low || address >= scope.high) continue;
      if (best == nullptr || scope.high - scope.low < best->high - best->low ||
          (scope.high - scope.low == best->high - best->low && scope.depth > best->depth))
        best = &scope;
    }
    if (best != nullptr) return best->name;
    // Code without a DWARF function (assembly): BFD names the symbol before it.
    std::string symbol = namer_(address);
    return symbol.substr(0, symbol.find('+'));
  }

  void show_source(const std::string& path, unsigned line) {
    auto found = files_.find(path);
    if (found == files_.end()) found = files_.emplace(path, read_source(path)).first;
    ShownFile& file = found->second;
    if (!file.readable || line == file.last_line) return;
    unsigned first = line > kPrecedingContextLines ? line - kPrecedingContextLines : 1;
    if (file.max_printed >= first) first = file.max_printed < line ? file.max_printed + 1 : line;
    for (unsigned number = first; number <= line && number <= file.lines.size(); ++number)
      out_.push_back(file.lines[number - 1]);
    file.max_printed = std::max(file.max_printed, line);
    file.last_line = line;
  }

  symbols::DwarfInfo* dwarf_;
  const AddressNamer& namer_;
  std::vector<symbols::FunctionScope> scopes_;
  std::string compilation_dir_;
  bool with_source_;
  std::vector<std::string>& out_;
  std::map<std::string, ShownFile> files_;
  std::string previous_function_;
  int previous_line_ = 0;
  unsigned previous_discriminator_ = 0;
};

std::string named(uint64_t address, const AddressNamer& namer) {
  std::string name = namer(address);
  return name.empty() ? fmt::format("{:x}", address) : fmt::format("{:x} <{}>", address, name);
}

}  // namespace

std::string objdump_text(const symbols::Instruction& instruction, const AddressNamer& namer) {
  std::string operands =
      instruction.branch_target != 0 ? named(instruction.branch_target, namer) : instruction.operands;
  if (instruction.memory_target != 0) operands += "        # " + named(instruction.memory_target, namer);
  return operands.empty() ? instruction.mnemonic : fmt::format("{:<6} {}", instruction.mnemonic, operands);
}

AddressNamer objdump_namer(const symbols::ElfImage& code, const symbols::ElfImage* debug) {
  const symbols::ElfImage& named =
      !code.has_symtab() && debug != nullptr && debug->has_symtab() ? *debug : code;
  auto sorted = std::make_shared<std::vector<symbols::SectionSymbol>>(named.section_symbols());
  for (const symbols::RawSymbol& plt : code.plt_symbols())
    sorted->push_back({plt.start, code.section_index_at(plt.start), STT_FUNC, STB_GLOBAL,
                       plt.name.ends_with("@plt") ? plt.name : plt.name + "@plt"});
  std::sort(sorted->begin(), sorted->end(),
            [](const symbols::SectionSymbol& a, const symbols::SectionSymbol& b) {
              if (a.address != b.address) return a.address < b.address;
              if ((a.type == STT_FUNC) != (b.type == STT_FUNC)) return a.type == STT_FUNC;
              if ((a.binding == STB_LOCAL) != (b.binding == STB_LOCAL)) return b.binding == STB_LOCAL;
              return a.name < b.name;
            });
  return [sorted](uint64_t address) -> std::string {
    auto after =
        std::upper_bound(sorted->begin(), sorted->end(), address,
                         [](uint64_t value, const symbols::SectionSymbol& s) { return value < s.address; });
    if (after == sorted->begin()) return "";
    auto found = std::prev(after);
    while (found != sorted->begin() && std::prev(found)->address == found->address) --found;
    return found->address == address ? found->name
                                     : fmt::format("{}+{:#x}", found->name, address - found->address);
  };
}

Result<ObjdumpListing> objdump_listing(const symbols::ElfImage& code, symbols::DwarfInfo* dwarf,
                                       const ListedFunction& function, const AddressNamer& namer,
                                       const ListingStyle& style) {
  if (function.end <= function.start || function.end - function.start > kMaxFunctionSize)
    return failf("'{}': {} claims {} bytes of code; not disassembled", code.path(), function.name,
                 function.end - function.start);
  std::string_view bytes = code.code(function.start, function.end - function.start);
  if (bytes.empty())
    return failf("'{}' holds no code for {} at {:#x}", code.path(), function.name, function.start);
  auto instructions = symbols::disassemble(bytes, function.start, code.machine(), style.intel);
  if (!instructions) return tl::unexpected(instructions.error());

  std::string section = code.section_name_at(function.start);
  // The header names the symbol objdump picks among those at the start (perf's may be an alias).
  std::string header_name = namer(function.start);
  if (header_name.empty() || header_name.find('+') != std::string::npos) header_name = function.name;
  std::vector<std::string> out = {"", "",
                                  "", fmt::format("Disassembly of section {}:", section),
                                  "", fmt::format("{:016x} <{}>:", function.start, header_name)};
  LineShower lines(dwarf, function, namer, style.source, out);
  for (const symbols::Instruction& instruction : *instructions) {
    lines.before(instruction.address);
    std::string text = objdump_text(instruction, namer);
    if (!style.raw_bytes) {
      out.push_back(fmt::format("{:>8x}:\t{}", instruction.address, text));
      continue;
    }
    // objdump's x86 layout: seven bytes a line, padded, then the text; the rest of a longer
    // instruction's bytes on lines of their own.
    std::string_view raw = bytes.substr(instruction.address - function.start, instruction.size);
    for (size_t at = 0; at < raw.size() || at == 0; at += kRawBytesPerLine) {
      std::string hex;
      for (size_t i = at; i < raw.size() && i < at + kRawBytesPerLine; ++i)
        hex += fmt::format("{:02x} ", static_cast<uint8_t>(raw[i]));
      if (at == 0)
        out.push_back(
            fmt::format("{:>8x}:\t{:<{}}\t{}", instruction.address, hex, kRawBytesPerLine * 3, text));
      else
        out.push_back(fmt::format("{:>8x}:\t{}", instruction.address + at, hex));
    }
  }
  // Capstone stopped before the end: say where, rather than show a shorter function as whole.
  uint64_t decoded =
      instructions->empty() ? function.start : instructions->back().address + instructions->back().size;
  if (decoded < function.end)
    out.push_back(
        fmt::format("(sonde: the disassembler cannot decode the bytes at {:x}; the {} bytes from there "
                    "to the end of {} are not shown)",
                    decoded, function.end - decoded, function.name));
  return ObjdumpListing{std::move(out), decoded};
}

}  // namespace sonde::analysis
