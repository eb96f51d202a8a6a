#pragma once
// The binary a user probe goes into (-x): its real path, its ELF image, and the DWARF of its
// debug file, found where the symbolizer finds debug files (.gnu_debuglink, the build-id cache,
// /usr/lib/debug, the file itself, debuginfod). Addresses here are ELF virtual addresses; the
// kernel's uprobe takes a file offset (`file_offset`).
#include <elfutils/libdw.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "symbols/elf_image.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::probe {

class ProbeBinary {
 public:
  // `path` as the user gave it; fails with one line when it is missing or not ELF.
  static Result<std::unique_ptr<ProbeBinary>> open(const std::string& path,
                                                   const symbols::SymbolizerOptions& options);
  ~ProbeBinary();
  ProbeBinary(const ProbeBinary&) = delete;
  ProbeBinary& operator=(const ProbeBinary&) = delete;

  const std::string& path() const { return path_; }  // canonical, as perf writes it
  const symbols::ElfImage& image() const { return *image_; }
  // The DWARF, nullptr when no debug information was found.
  Dwarf* dwarf() const { return dwarf_; }
  const std::string& debug_path() const { return debug_path_; }
  // What to say when a variable needs DWARF and there is none: names the missing debug file and
  // the fixes.
  std::string missing_debug_info_hint() const;

  // The file offset of the code at `vaddr` (through its PT_LOAD segment), as uprobes take it.
  std::optional<uint64_t> file_offset(uint64_t vaddr) const;
  // The reverse, for listing probes by their offset.
  std::optional<uint64_t> vaddr_of_offset(uint64_t offset) const;

  // Function symbols (.symtab of the debug file or the binary, else .dynsym), names as stored
  // ("malloc", "__libc_malloc", "_ZN7Counter4bumpEl"), by address.
  const std::vector<symbols::RawSymbol>& function_symbols();
  // The addresses of the global or weak function symbols named `name` (also `name@VERSION`);
  // empty when a local symbol has the name too (static functions may repeat across CUs).
  std::vector<uint64_t> global_symbol_addresses(std::string_view name);
  // The image whose symbol table names the functions: the debug file's .symtab when the binary
  // is stripped.
  const symbols::ElfImage& symbol_image() const;
  // Whether a GNU indirect function (STT_GNU_IFUNC) starts at `vaddr`: a probe there fires when
  // the dynamic linker picks an implementation, not when the function runs.
  bool is_gnu_ifunc(uint64_t vaddr) const;
  // The symbol whose extent holds `vaddr`, or nullptr.
  const symbols::RawSymbol* symbol_at(uint64_t vaddr);

 private:
  ProbeBinary() = default;

  std::string path_;
  std::unique_ptr<symbols::ElfImage> image_;
  std::unique_ptr<symbols::ElfImage> debug_image_;  // when the DWARF is in another file
  Dwarf* dwarf_ = nullptr;
  std::string debug_path_;
  std::string build_id_;
  std::optional<std::vector<symbols::RawSymbol>> function_symbols_;
};

}  // namespace sonde::probe
