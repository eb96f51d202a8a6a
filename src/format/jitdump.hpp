#pragma once
// A JIT runtime's jitdump file (perf's tools/perf/Documentation/jitdump-specification.txt): a
// 40-byte header ("JiTD", version 1, the writer's pid, flags), then records — each function's
// code as it is loaded (name, address, bytes), moved, its line table and its unwinding tables.
// The runtime maps the file executable so that a recording names it; `inject -j` reads it back
// and turns each loaded function into a small ELF file (format/jit_elf) and an MMAP2 record.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::format {

inline constexpr uint64_t kJitdumpArchTimestamp =
    1;  // JITDUMP_FLAGS_ARCH_TIMESTAMP: TSC, not CLOCK_MONOTONIC

struct JitRecord {
  enum class Kind { load, move };
  Kind kind = Kind::load;
  uint64_t timestamp = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t vma = 0;
  uint64_t code_addr = 0;  // load: where the code is; move: its new place
  uint64_t code_size = 0;
  uint64_t code_index = 0;
  std::string name;           // load only
  std::vector<uint8_t> code;  // load only
};

struct JitDump {
  uint32_t pid = 0;
  uint64_t flags = 0;
  std::vector<JitRecord> records;  // loads and moves in file order (line tables, unwinding tables and
                                   // closes are read past)
};

// perf's test of an MMAP's file name: its last component is "jit-<pid>.dump", the pid the
// mapping process's own (`pid` 0 takes any).
bool is_jitdump_name(std::string_view filename, uint32_t pid);

// Reads a jitdump of either byte order; a bad magic, a newer version or unknown flags are errors.
Result<JitDump> read_jitdump(const std::string& path);

}  // namespace sonde::format
