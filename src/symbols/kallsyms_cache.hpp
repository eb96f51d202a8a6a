#pragma once
// The running kernel's symbols without reading /proc/kallsyms: the kernel formats its ~120,000
// lines anew at every read (~100 ms here), more than a small report costs in all. The parsed
// and cleaned-up tables are kept in a binary file, valid only for exactly the kernel state they
// were read from: the kernel's build-id, this boot (KASLR moves everything at each boot), the
// loaded modules and their load addresses, and the loaded BPF programs (whose JIT images are
// in kallsyms as "[bpf]"). Any change rebuilds it from /proc/kallsyms.
#include <memory>
#include <string>

#include "base/error.hpp"
#include "symbols/kernel_symbols.hpp"

namespace sonde::symbols {

// What the cached tables depend on. Fails when a part cannot be read (no build-id note, no boot
// id, BPF program ids hidden from an unprivileged user): then there is no cache, only
// /proc/kallsyms.
struct RunningKernelState {
  std::string build_id;  // hex: names the cache file
  std::string key;       // build-id, boot, modules and BPF programs: the cache is valid for it only
};
Result<RunningKernelState> running_kernel_state();

// $XDG_CACHE_HOME/sonde, or $HOME/.cache/sonde.
std::string sonde_cache_dir();

// The symbols of `kallsyms_path` as load_kallsyms gives them. For /proc/kallsyms they come
// from the cache file in sonde_cache_dir() when its key is the running kernel's; otherwise the
// file is read and parsed, and the cache written for the next run (best effort: a cache that
// cannot be written is no error). The running kernel's tables are loaded once per process and
// kept to its end (a diff's two files share them, and a small report does not spend a tenth of
// its time freeing 120,000 names at exit); a change of the kernel state loads them again.
Result<std::shared_ptr<const KernelSymbols>> load_kallsyms_cached(const std::string& kallsyms_path);

// The cache file's two halves, for tests: the tables with their key, and back. A file whose
// key differs, or that is truncated or not a cache at all, reads as an error.
std::string serialize_kernel_symbols(const KernelSymbols& symbols, const std::string& key);
Result<KernelSymbols> read_kernel_symbols_cache(const std::string& path, const std::string& key);
// Writes the cache atomically (base's replace_file), making its directory when missing.
Result<void> write_kernel_symbols_cache(const std::string& path, const KernelSymbols& symbols,
                                        const std::string& key);

}  // namespace sonde::symbols
