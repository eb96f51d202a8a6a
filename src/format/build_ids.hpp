#pragma once
// Build-ids for the BUILD_ID header feature: perf report and perf buildid-list use them to match
// a recorded DSO with the right binary or debug file later. Only what is needed is read: the ELF
// header, the program headers and the PT_NOTE segments (section headers only when there are no
// note segments, as in a relocatable .ko), with a few preads and no mapping of the file.
//
// Not covered: the vdso (perf reads its image out of a process's memory; sonde writes no entry
// for [vdso] yet), compressed modules (.ko.xz: their build-id comes from /sys/module instead),
// and ELF files of the other byte order.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "base/error.hpp"
#include "format/features.hpp"

namespace sonde::format {

using BuildId = std::vector<uint8_t>;  // usually 20 bytes (sha1), at most 20 in perf.data

// The NT_GNU_BUILD_ID descriptor among ELF notes (the bytes of a PT_NOTE segment, an SHT_NOTE
// section or /sys/kernel/notes). `align` is the note alignment: 4, or 8 for segments aligned so.
std::optional<BuildId> find_gnu_build_id(std::span<const uint8_t> notes, size_t align = 4);

// The build-id of an ELF file; an error when the file is not ELF or has no build-id note.
Result<BuildId> read_elf_build_id(const std::string& path);

// The running kernel's build-id, from its notes in sysfs.
Result<BuildId> read_kernel_build_id(const std::string& notes_path = "/sys/kernel/notes");

// A loaded module's build-id, from /sys/module/<name>/notes/.note.gnu.build-id.
Result<BuildId> read_module_build_id(const std::string& module_name);

// Lower-case hex, as perf buildid-list and readelf print it.
std::string build_id_hex(std::span<const uint8_t> id);

// A DSO that has samples, as the record command names it from the MMAP records.
struct DsoRef {
  std::string name;     // a path, "[kernel.kallsyms]", a module path or "[module]", "[vdso]"...
  bool kernel = false;  // the kernel or a module (PERF_RECORD_MISC_KERNEL maps)
};

// Build-ids by file, each file read once per identity: a path whose device, inode, size and
// mtime are unchanged is not read again (a rebuilt binary at the same path is).
class BuildIdCache {
 public:
  // The build-id of the file at `path`; nullopt when it has none or cannot be read. Failures
  // are cached too, so a stripped library costs one read per recording.
  std::optional<BuildId> lookup(const std::string& path);

  // The BUILD_ID feature entries (host pid -1) for `dsos`, in order, skipping those without a
  // build-id: "[kernel.kallsyms]" from the kernel's notes, modules from /sys/module (or the .ko
  // file), files by path. Pseudo-files ([vdso], [vsyscall], //anon, "(deleted)") are skipped.
  std::vector<perfdata::BuildIdEntry> entries(std::span<const DsoRef> dsos);

  size_t reads() const { return reads_; }  // files actually opened, for tests of the cache

 private:
  using Key = std::tuple<dev_t, ino_t, off_t, int64_t, int64_t>;  // dev, inode, size, mtime s, ns
  std::map<Key, std::optional<BuildId>> by_identity_;
  std::optional<std::optional<BuildId>> kernel_;
  size_t reads_ = 0;
};

}  // namespace sonde::format
