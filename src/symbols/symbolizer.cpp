#include "symbols/symbolizer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <future>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "format/build_ids.hpp"
#include "kernel/kallsyms.hpp"
#include "symbols/buildid_cache.hpp"
#include "symbols/debug_file_cache.hpp"
#include "symbols/debug_files.hpp"
#include "symbols/debuginfod_client.hpp"
#include "symbols/demangle.hpp"
#include "symbols/dwarf_info.hpp"
#include "symbols/elf_image.hpp"
#include "symbols/jit_map.hpp"
#include "symbols/kallsyms_cache.hpp"
#include "symbols/kernel_symbols.hpp"
#include "symbols/symbol_table.hpp"
#include "symbols/vdso.hpp"

namespace sonde::symbols {

struct DsoState {
  const SymbolTable* table = nullptr;  // own_table, or a shared kernel/module table
  SymbolTable own_table;
  bool space_is_offsets = false;       // user DSOs: addresses come in as file offsets
  std::vector<LoadSegment> segments;   // to turn those into ELF virtual addresses
  std::shared_ptr<ElfImage> runtime;   // the file with code (and .dynsym, PLT)
  std::shared_ptr<ElfImage> symbols;   // the file the symbols came from (may be the same one)
  std::unique_ptr<ElfImage> inflated;  // the DWARF's uncompressed copy in sonde's cache, when made
  std::string elf_path;
  std::string debug_path;
  bool dwarf_tried = false;
  std::unique_ptr<DwarfInfo> dwarf;
  std::unordered_map<uint64_t, std::string> srclines;
  std::unordered_map<uint64_t, std::vector<InlineFrame>> inlines;
};

namespace {

bool is_regular_file(const std::string& path) {
  return !path.empty() && path_exists(path) && !is_directory(path);
}

std::vector<RawSymbol> demangled(std::vector<RawSymbol> symbols, bool demangle_names,
                                 const char* suffix = "") {
  for (RawSymbol& symbol : symbols) {
    if (demangle_names) {
      if (auto name = demangle(symbol.name)) symbol.name = std::move(*name);
    }
    symbol.name += suffix;
  }
  return symbols;
}

}  // namespace

// Shared by every kernel and module Dso: kallsyms is read once.
struct KernelState {
  bool tried = false;
  std::shared_ptr<const KernelSymbols> symbols;
  std::string prefetched_path;  // what `prefetched` reads, when started
  std::future<Result<std::shared_ptr<const KernelSymbols>>> prefetched;
};

Symbolizer::Symbolizer(SymbolizerOptions options, Diagnostics* notes)
    : options_(std::move(options)), notes_(notes) {
  if (options_.buildid_dir.empty()) options_.buildid_dir = buildid_cache_dir();
}

Symbolizer::~Symbolizer() = default;

void Symbolizer::prefetch_kernel_symbols() {
  if (!kernel_) kernel_ = std::make_unique<KernelState>();
  // With a vmlinux, kallsyms is only its fallback.
  if (kernel_->tried || kernel_->prefetched.valid() || !options_.vmlinux.empty()) return;
  kernel_->prefetched_path = options_.kallsyms;
  kernel_->prefetched = std::async(std::launch::async, load_kallsyms_cached, options_.kallsyms);
}

namespace {

class Loader {
 public:
  Loader(const SymbolizerOptions& options, Diagnostics* notes) : options_(options), notes_(notes) {}

  void load_user(DsoState& state, const session::Dso& dso) {
    state.space_is_offsets = true;
    std::string binary = options_.symfs + dso.long_name;
    // Without a recorded build-id, perf takes the file's own to find its debug files (a file
    // that cannot be opened has none; the note below says it was not found).
    const std::string id = dso.build_id.empty() ? elf_build_id(binary).value_or("") : dso.build_id;
    std::vector<std::string> candidates = debug_file_candidates(dso.long_name, id, options_);
    std::function<std::string()> fetch;
    if (!id.empty() && options_.debuginfod) fetch = [&id] { return debuginfod_debuginfo(id); };
    choose(state, dso, id, candidates, /*quiet=*/false, fetch);
  }

  void load_vdso(DsoState& state, const session::Dso& dso) {
    state.space_is_offsets = true;
    std::vector<std::string> candidates;
    if (!dso.build_id.empty())
      candidates.push_back(buildid_cache_file(options_.buildid_dir, dso.build_id, "vdso"));
    choose(state, dso, dso.build_id, candidates, /*quiet=*/true);
    if (state.runtime || state.symbols) return;
    auto own = ElfImage::open_memory(own_vdso_image(), "[vdso]");
    if (!own) {
      note("[vdso]: this process has no vdso to read symbols from");
      return;
    }
    if (!dso.build_id.empty() && own->build_id() != dso.build_id) {
      note(fmt::format("[vdso]: recorded build-id {} is not this kernel's vdso ({})", dso.build_id,
                       own->build_id()));
      return;
    }
    auto image = std::make_shared<ElfImage>(std::move(*own));
    state.own_table = SymbolTable::build(demangled(image->symbols(!image->has_symtab()), options_.demangle));
    state.table = &state.own_table;
    state.segments = image->load_segments();
    state.runtime = std::move(image);
  }

  void load_jit_map(DsoState& state, const session::Dso& dso) {
    auto table = load_perf_map(dso.long_name);
    if (!table) {
      note(fmt::format("{}: JIT map not readable: {}", dso.long_name, table.error().message));
      return;
    }
    state.own_table = std::move(*table);
    state.table = &state.own_table;
  }

  void load_kernel(DsoState& state, const session::Dso& dso, KernelState& kernel) {
    if (!options_.vmlinux.empty() && dso.kind == session::DsoKind::kernel) {
      auto image = ElfImage::open(options_.vmlinux);
      if (image && (dso.build_id.empty() || image->build_id() == dso.build_id)) {
        state.own_table = SymbolTable::build(demangled(image->symbols(!image->has_symtab()), false));
        state.table = &state.own_table;
        state.elf_path = state.debug_path = options_.vmlinux;
        state.symbols = std::make_shared<ElfImage>(std::move(*image));
        return;
      }
      note(fmt::format("{}: {}; using kallsyms", options_.vmlinux,
                       image ? "build-id does not match the recorded kernel" : image.error().message));
    }
    if (!kernel.tried) {
      kernel.tried = true;
      std::string path = kallsyms_path(dso);
      if (!path.empty()) {
        bool ready = kernel.prefetched.valid() && kernel.prefetched_path == path;
        auto loaded = ready ? kernel.prefetched.get() : load_kallsyms_cached(path);
        if (loaded)
          kernel.symbols = std::move(*loaded);
        else
          note(loaded.error().message);
      }
    }
    if (!kernel.symbols) return;
    if (dso.kind == session::DsoKind::kernel) {
      state.table = &kernel.symbols->kernel;
      return;
    }
    std::string module = kernel::module_name_from_path(dso.long_name);
    auto it = kernel.symbols->modules.find(module);
    if (it != kernel.symbols->modules.end())
      state.table = &it->second;
    else
      note(fmt::format("{}: module not in kallsyms", dso.long_name));
  }

 private:
  // The running kernel's kallsyms fits a recorded kernel only when their build-ids agree;
  // otherwise perf looks for the recorded kernel's kallsyms in the build-id cache.
  std::string kallsyms_path(const session::Dso& dso) {
    // A module's build-id is its own, not the kernel's: only the kernel's is compared.
    if (options_.kallsyms != "/proc/kallsyms" || dso.build_id.empty() || dso.kind != session::DsoKind::kernel)
      return options_.kallsyms;
    auto running = format::read_kernel_build_id();
    if (!running || format::build_id_hex(*running) == dso.build_id) return options_.kallsyms;
    std::string cached = buildid_cache_file(options_.buildid_dir, dso.build_id, "kallsyms");
    if (cached.empty()) {
      note(fmt::format("[kernel.kallsyms]: recorded on another kernel (build-id {}) and not in {}",
                       dso.build_id, options_.buildid_dir));
    }
    return cached;
  }

  // Opens the candidates in order: the first with .symtab gives the symbols, the first with
  // .dynsym is the runtime image (PLT, load segments); a build-id that differs from the
  // recorded one rules a file out, as in perf.
  // `last_resort` (a network fetch) is asked only when no local file has a symbol table.
  void choose(DsoState& state, const session::Dso& dso, const std::string& build_id,
              const std::vector<std::string>& candidates, bool quiet = false,
              const std::function<std::string()>& last_resort = nullptr) {
    std::unordered_set<std::string> seen;
    std::string mismatch;
    bool found_any = false;
    auto consider = [&](const std::string& path) {
      if (path.empty() || !seen.insert(path).second || !is_regular_file(path)) return;
      auto image = ElfImage::open(path);
      if (!image) return;
      found_any = true;
      if (!build_id.empty() && image->build_id() != build_id) {
        if (mismatch.empty())
          mismatch = fmt::format("{} has build-id {}, the recording {}", path,
                                 image->build_id().empty() ? "none" : image->build_id(), build_id);
        return;
      }
      bool symtab = image->has_symtab() && !state.symbols;
      bool runtime = (image->has_dynsym() || image->has_code()) && !state.runtime;
      if (!symtab && !runtime) return;
      auto shared = std::make_shared<ElfImage>(std::move(*image));
      if (symtab) state.symbols = shared;
      if (runtime) state.runtime = shared;
    };
    for (const std::string& path : candidates) {
      consider(path);
      if (state.symbols && state.runtime) break;
    }
    if (!state.symbols && last_resort) consider(last_resort());
    const ElfImage* source = state.symbols ? state.symbols.get() : state.runtime.get();
    if (!source) {
      if (quiet) return;
      if (!mismatch.empty())
        note(fmt::format("{}: no symbols: {}", dso.long_name, mismatch));
      else if (!found_any)
        note(fmt::format("{}: no symbols: file not found", dso.long_name));
      else
        note(fmt::format("{}: no symbols: no symbol table", dso.long_name));
      return;
    }
    state.own_table =
        SymbolTable::build(demangled(source->symbols(!source->has_symtab()), options_.demangle));
    if (!state.symbols && !quiet)
      note(
          fmt::format("{}: stripped: only its dynamic symbols are known; install "
                      "its debug file for the others",
                      dso.long_name));
    if (state.runtime)
      state.own_table.add_unchecked(demangled(state.runtime->plt_symbols(), options_.demangle, "@plt"));
    state.table = &state.own_table;
    const ElfImage* code = state.runtime && state.runtime->has_code()   ? state.runtime.get()
                           : state.symbols && state.symbols->has_code() ? state.symbols.get()
                                                                        : nullptr;
    state.elf_path = code ? code->path() : "";
    state.segments = (state.runtime ? state.runtime.get() : source)->load_segments();
  }

  void note(std::string text) {
    if (notes_) notes_->note(std::move(text));
  }

  const SymbolizerOptions& options_;
  Diagnostics* notes_;
};

}  // namespace

DsoState& Symbolizer::state(const session::Dso& dso) {
  if (states_.size() <= dso.id) states_.resize(dso.id + 1);
  std::unique_ptr<DsoState>& slot = states_[dso.id];
  if (slot) return *slot;
  slot = std::make_unique<DsoState>();
  Loader loader(options_, notes_);
  switch (dso.kind) {
    case session::DsoKind::user:
      loader.load_user(*slot, dso);
      break;
    case session::DsoKind::vdso:
      loader.load_vdso(*slot, dso);
      break;
    case session::DsoKind::jit_map:
      loader.load_jit_map(*slot, dso);
      break;
    case session::DsoKind::kernel:
    case session::DsoKind::kernel_module:
      if (!kernel_) kernel_ = std::make_unique<KernelState>();
      loader.load_kernel(*slot, dso, *kernel_);
      break;
    case session::DsoKind::anon:
      break;
  }
  return *slot;
}

namespace {

uint64_t to_symbol_space(const DsoState& state, uint64_t addr) {
  if (!state.space_is_offsets) return addr;
  // Executable segments first: data segments may share a file page with the end of text.
  for (int pass = 0; pass < 2; ++pass) {
    for (const LoadSegment& segment : state.segments) {
      if (segment.executable != (pass == 0)) continue;
      if (addr >= segment.offset && addr < segment.offset + segment.filesz)
        return addr - segment.offset + segment.vaddr;
    }
  }
  return addr;  // outside every segment: perf's assumption that offsets are addresses
}

}  // namespace

const Symbol* Symbolizer::find(const session::Dso& dso, uint64_t addr) {
  DsoState& s = state(dso);
  return s.table ? s.table->find(to_symbol_space(s, addr)) : nullptr;
}

std::vector<const Symbol*> Symbolizer::resolve_all(const session::Dso& dso, std::span<const uint64_t> addrs) {
  DsoState& s = state(dso);
  std::vector<const Symbol*> out(addrs.size(), nullptr);
  if (!s.table) return out;
  auto resolve = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) out[i] = s.table->find(to_symbol_space(s, addrs[i]));
  };
  // The table is immutable once loaded, so two threads can search it at once.
  constexpr size_t kParallelThreshold = 1 << 16;
  if (addrs.size() < kParallelThreshold || std::thread::hardware_concurrency() < 2) {
    resolve(0, addrs.size());
    return out;
  }
  size_t half = addrs.size() / 2;
  std::thread second([&] { resolve(half, addrs.size()); });
  resolve(0, half);
  second.join();
  return out;
}

uint64_t Symbolizer::elf_address(const session::Dso& dso, uint64_t addr) {
  return to_symbol_space(state(dso), addr);
}

uint64_t Symbolizer::symbols_end(const session::Dso& dso) {
  DsoState& s = state(dso);
  return s.table && !s.table->empty() ? s.table->max_ends().back() : 0;
}

namespace {

DwarfInfo* dwarf_of(DsoState& state) {
  if (state.dwarf_tried) return state.dwarf.get();
  state.dwarf_tried = true;
  for (ElfImage* image : {state.symbols.get(), state.runtime.get()}) {
    if (!image) continue;
    // A distribution's debug file keeps its DWARF compressed, and libdw inflates all of it at
    // open (libc's: a tenth of a second): the inflated copy in sonde's cache is read instead.
    std::string inflated = uncompressed_debug_file(image->path(), image->build_id());
    if (inflated != image->path())
      if (auto copy = ElfImage::open(inflated)) {
        state.inflated = std::make_unique<ElfImage>(std::move(*copy));
        image = state.inflated.get();
      }
    state.dwarf = DwarfInfo::open(image->elf());
    if (state.dwarf) {
      state.debug_path = image->path();
      break;
    }
  }
  return state.dwarf.get();
}

}  // namespace

std::string Symbolizer::srcline(const session::Dso& dso, uint64_t addr) {
  DsoState& s = state(dso);
  auto cached = s.srclines.find(addr);
  if (cached != s.srclines.end()) return cached->second;
  std::string text;
  if (DwarfInfo* dwarf = dwarf_of(s)) {
    if (auto where = dwarf->line(to_symbol_space(s, addr)))
      text = std::string(options_.full_source_path ? std::string_view(where->file)
                                                   : path_basename(where->file)) +
             ":" + std::to_string(where->line);
  }
  s.srclines.emplace(addr, text);
  return text;
}

std::vector<InlineFrame> Symbolizer::inline_frames(const session::Dso& dso, uint64_t addr) {
  DsoState& s = state(dso);
  auto cached = s.inlines.find(addr);
  if (cached != s.inlines.end()) return cached->second;
  std::vector<InlineFrame> frames;
  if (DwarfInfo* dwarf = dwarf_of(s))
    frames = dwarf->inline_frames(to_symbol_space(s, addr), options_.demangle);
  s.inlines.emplace(addr, frames);
  return frames;
}

std::string Symbolizer::function_name(const session::Dso& dso, uint64_t addr) {
  DsoState& s = state(dso);
  DwarfInfo* dwarf = dwarf_of(s);
  return dwarf != nullptr ? dwarf->subprogram_name(to_symbol_space(s, addr), options_.demangle)
                          : std::string();
}

std::string Symbolizer::elf_path(const session::Dso& dso) { return state(dso).elf_path; }

std::string Symbolizer::debug_path(const session::Dso& dso) {
  DsoState& s = state(dso);
  dwarf_of(s);
  return s.debug_path;
}

}  // namespace sonde::symbols
