#pragma once
// perf's build-id cache (~/.debug), laid out as perf 6.1 lays it out:
//   <dir>/<absolute path of the file>/<build-id>/elf     the file (hard link, else a copy)
//   <dir>/<absolute path of the file>/<build-id>/debug   its separate debug file, when found
//   <dir>/<absolute path of the file>/<build-id>/probes  perf's probe cache (empty here)
//   <dir>/.build-id/<first 2 hex>/<other 38 hex> -> ../../<path>/<build-id>   (relative symlink)
// The kernel's entry is "[kernel.kallsyms]/<build-id>/kallsyms", the vdso's "[vdso]/<id>/vdso".
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde::symbols {

// The cache directory: `configured` (--buildid-dir) when set, else $PERF_BUILDID_DIR, else
// $HOME/.debug.
std::string buildid_cache_dir(const std::string& configured = "");

// <dir>/.build-id/xx/yyyy for a hex build-id.
std::string buildid_cache_link(const std::string& dir, const std::string& build_id);

// The cached file for `build_id` of the given kind ("elf", "debug", "kallsyms", "vdso"),
// following the .build-id link; "" when it is not there.
std::string buildid_cache_file(const std::string& dir, const std::string& build_id, const std::string& kind);

// perf buildid-cache --add: caches `file` (and its debug file found by build-id under
// `debug_root`) under `dir`.
Result<void> buildid_cache_add(const std::string& dir, const std::string& file,
                               const std::string& debug_root = "/usr/lib/debug");

// perf buildid-cache --remove: drops `file`'s entry for its current build-id; nothing to do is
// not an error.
Result<void> buildid_cache_remove(const std::string& dir, const std::string& file);

// perf buildid-cache --purge: drops every cached build-id of `file`'s path (old builds too).
Result<void> buildid_cache_purge(const std::string& dir, const std::string& file);

struct CachedEntry {
  std::string build_id;
  std::string path;  // the original file's path, or "[kernel.kallsyms]", "[vdso]"
};

// perf buildid-cache --list: every entry of the cache, sorted by build-id.
std::vector<CachedEntry> buildid_cache_list(const std::string& dir);

}  // namespace sonde::symbols
