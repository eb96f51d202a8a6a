#pragma once
// Symbolization: from (Dso, address) to the function name, its source line and its inline
// frames, as perf 6.1 prints them. Everything is loaded lazily per DSO on first use and cached
// by Dso::id, so each file is opened once and each address resolved once per session.
//
// Address conventions (one for the whole layer):
//  - `addr` passed in is what the session computes: for user DSOs and the vdso the file offset
//    (perf's map_ip: ip - map.start + map.pgoff); for the kernel, modules and JIT maps the
//    absolute address.
//  - Symbol::start is in the DSO's symbol space: the ELF virtual address for user DSOs and the
//    vdso, the absolute address for the kernel, modules and JIT maps.
//  - elf_address() converts `addr` into that space (through the PT_LOAD segment holding the
//    offset), so perf's `sym+0x..` offset is elf_address(dso, addr) - symbol->start.
//
// Not thread-safe: one thread calls in (resolve_all splits its own work across two threads).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "session/dso.hpp"

namespace sonde::symbols {

struct Symbol {
  uint64_t start = 0;   // in the DSO's symbol space (see above)
  uint64_t size = 0;    // perf's extent: the ELF size, or up to the next symbol when it had none
  std::string name;     // demangled when demangling is on (C++ and Rust, as perf does)
  uint8_t binding = 0;  // STB_LOCAL, STB_GLOBAL, STB_WEAK (kallsyms: its type letter's)
};

struct InlineFrame {  // innermost first
  std::string function;
  std::string file;  // as the DWARF line table names it (full path when it has one)
  unsigned line = 0;
};

struct SymbolizerOptions {
  std::string symfs;                          // --symfs: a root prefixed to every file looked up
  std::string kallsyms = "/proc/kallsyms";    // --kallsyms
  std::string vmlinux;                        // -k/--vmlinux
  bool demangle = true;                       // --no-demangle turns it off
  bool inline_frames = false;                 // --inline
  bool full_source_path = false;              // --full-source-path: srcline's file as DWARF names it
  std::string buildid_dir;                    // --buildid-dir; "" means $HOME/.debug
  bool debuginfod = true;                     // consulted only when DEBUGINFOD_URLS is set
  std::string debug_root = "/usr/lib/debug";  // where separate debug files live (tests move it)
};

struct DsoState;     // per-DSO tables, private to the implementation
struct KernelState;  // kallsyms, shared by the kernel and its modules

class Symbolizer {
 public:
  // One note per DSO that could not be resolved (missing, stripped, build-id mismatch) goes to
  // `notes` as it is found, when the caller shows them (report -v); nullptr drops them.
  explicit Symbolizer(SymbolizerOptions options, Diagnostics* notes = nullptr);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  const SymbolizerOptions& options() const { return options_; }

  // The symbol covering `addr` in `dso`, or nullptr. Pointers stay valid for the Symbolizer's
  // lifetime.
  const Symbol* find(const session::Dso& dso, uint64_t addr);

  // find() for many addresses of one DSO, split across two threads when there are many.
  std::vector<const Symbol*> resolve_all(const session::Dso& dso, std::span<const uint64_t> addrs);

  // `addr` in the DSO's symbol space (see the top of this file).
  uint64_t elf_address(const session::Dso& dso, uint64_t addr);

  // Where the DSO's last symbol ends (0 without symbols): perf ends the kernel's map there
  // (map__fixup_end), rather than at the top of the address space.
  uint64_t symbols_end(const session::Dso& dso);

  // "file.c:123" as perf prints srcline (basename of the file, unless full_source_path), or "" when the DSO
  // has no line information for `addr` (callers print perf's fallback, e.g. "dso+0x1234" or "??:0").
  std::string srcline(const session::Dso& dso, uint64_t addr);

  // The frames inlined at `addr`, innermost first, ending with the function that holds them
  // all; empty when nothing is inlined there or no DWARF is available.
  std::vector<InlineFrame> inline_frames(const session::Dso& dso, uint64_t addr);

  // The DWARF name of the function holding `addr` (which may differ from its ELF symbol:
  // "__libc_start_main_impl" for "__libc_start_main@@GLIBC_2.34"), "" without DWARF.
  std::string function_name(const session::Dso& dso, uint64_t addr);

  // The ELF file holding code for `dso` (after the build-id cache, symfs and vdso lookups), or
  // "" when none was found: the unwinder opens this one.
  std::string elf_path(const session::Dso& dso);

  // The file whose DWARF is used for srcline and inline frames (a separate debug file when one
  // was found), or "".
  std::string debug_path(const session::Dso& dso);

  // Starts reading kallsyms (options().kallsyms) on another thread, for the kernel DSO asked
  // about later: reading and sorting it takes tens of milliseconds that a caller's own work
  // (the session's pass over a file) can hide. Unused when the recorded kernel needs another file.
  void prefetch_kernel_symbols();

 private:
  DsoState& state(const session::Dso& dso);

  SymbolizerOptions options_;
  std::vector<std::unique_ptr<DsoState>> states_;  // indexed by Dso::id
  std::unique_ptr<KernelState> kernel_;
  Diagnostics* notes_;
};

}  // namespace sonde::symbols
