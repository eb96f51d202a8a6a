#pragma once
// One ELF file opened with libelf for symbols: its symbol tables, PLT, load segments, build-id
// and .gnu_debuglink. Mapped read-only; the file stays open while the image lives.
#include <gelf.h>
#include <libelf.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "base/unique_fd.hpp"
#include "symbols/symbol_table.hpp"

namespace sonde::symbols {

struct LoadSegment {
  uint64_t offset = 0;  // p_offset
  uint64_t vaddr = 0;   // p_vaddr
  uint64_t filesz = 0;
  bool executable = false;
};

// A defined symbol with the section it is in, as objdump names addresses with them.
struct SectionSymbol {
  uint64_t address = 0;
  uint32_t section = 0;  // the section header index
  uint8_t type = 0;      // STT_FUNC, STT_OBJECT, STT_NOTYPE...
  uint8_t binding = 0;   // STB_LOCAL, STB_GLOBAL, STB_WEAK
  std::string name;
};

class ElfImage {
 public:
  static Result<ElfImage> open(const std::string& path);
  // An image held in memory (the vdso read out of a process); `name` names it in messages.
  static Result<ElfImage> open_memory(std::vector<char> bytes, const std::string& name);
  ElfImage(ElfImage&& other) noexcept;
  ElfImage& operator=(ElfImage&& other) noexcept;
  ~ElfImage();

  const std::string& path() const { return path_; }
  uint16_t type() const { return ehdr_.e_type; }             // ET_EXEC, ET_DYN, ET_REL
  const std::string& build_id() const { return build_id_; }  // lowercase hex, "" when none
  bool has_symtab() const { return symtab_ != nullptr; }
  bool has_dynsym() const { return dynsym_ != nullptr; }
  // .text holds bytes (not NOBITS as in a separate debug file): code the unwinder can read.
  bool has_code() const { return has_code_; }
  const std::vector<LoadSegment>& load_segments() const { return segments_; }

  // perf's symbols of the file: functions, objects and labels in text sections, from .symtab
  // (or .dynsym when `dynamic`), at their ELF virtual addresses, names as stored.
  std::vector<RawSymbol> symbols(bool dynamic) const;
  // The function symbols named `name` or `name@VERSION` (from .symtab, or .dynsym when
  // `dynamic`), found by a scan that copies only the matches: a name lookup in a big table.
  std::vector<RawSymbol> functions_named(std::string_view name, bool dynamic) const;
  // The names of every defined symbol perf keeps for `probe -F`: functions, objects and untyped
  // labels in any section (not files, sections, absolute or undefined symbols).
  std::vector<std::string> defined_symbol_names(bool dynamic) const;
  // Whether a GNU indirect function (STT_GNU_IFUNC) starts at `vaddr`, in either table.
  bool is_gnu_ifunc(uint64_t vaddr) const;
  // perf's PLT symbols: one "name@plt" entry (undemangled name here) per .rela.plt relocation,
  // laid out after the .plt header at the .plt section's address.
  std::vector<RawSymbol> plt_symbols() const;
  // The file named by .gnu_debuglink, or nullopt.
  std::optional<std::string> debuglink() const;

  Elf* elf() const { return elf_; }
  uint16_t machine() const { return ehdr_.e_machine; }  // EM_X86_64, EM_AARCH64, ...
  // The file's bytes at ELF virtual addresses [vaddr, vaddr + size), through the load segment
  // that holds them; empty when no segment holds them all (or the file has no code there).
  std::string_view code(uint64_t vaddr, uint64_t size) const;
  // The name of the loaded section holding `vaddr` (".text"), "" when none does.
  std::string section_name_at(uint64_t vaddr) const;
  // Its header index, 0 when no loaded section holds it.
  uint32_t section_index_at(uint64_t vaddr) const;
  // Every named symbol defined in a section (not files or sections), from .symtab, or .dynsym
  // without one: what objdump names addresses with.
  std::vector<SectionSymbol> section_symbols() const;

 private:
  // Every entry of .symtab (or .dynsym when `dynamic`) that has a name string, in table order.
  void for_each_symbol(bool dynamic, const std::function<void(const GElf_Sym&, const char*)>& visit) const;
  ElfImage() = default;
  Result<void> parse();
  Elf_Scn* section_by_name(const char* name, GElf_Shdr* header) const;

  std::string path_;
  UniqueFd fd_;
  std::vector<char> memory_;  // the bytes of an in-memory image
  Elf* elf_ = nullptr;
  GElf_Ehdr ehdr_{};
  size_t shstrndx_ = 0;
  Elf_Scn* symtab_ = nullptr;
  Elf_Scn* dynsym_ = nullptr;
  std::string build_id_;
  bool has_code_ = false;
  std::vector<LoadSegment> segments_;
};

// The ELF file's build-id (lowercase hex), or "" when it is not ELF or has no build-id note.
// Fails when the file cannot be opened.
Result<std::string> elf_build_id(const std::string& path);

}  // namespace sonde::symbols
