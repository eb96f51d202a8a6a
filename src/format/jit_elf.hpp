#pragma once
// The ELF file `inject -j` writes for one JIT-compiled function, laid out as perf's genelf does
// so that perf and sonde resolve it alike: a shared object whose .text holds the code at file
// offset and address 0x80 (the MMAP2 record's pgoff), one local function symbol over it, and a
// build-id note. The build-id is a hash of the load address and the code, so the same function
// gets the same id on every run (perf's, built without libcrypto, is random).
#include <cstdint>
#include <span>
#include <string>

#include "base/error.hpp"

namespace sonde::format {

inline constexpr uint64_t kJitElfTextOffset = 0x80;  // perf's GEN_ELF_TEXT_OFFSET on 64-bit

// Writes `path` whole (replacing it), mode 0644.
Result<void> write_jit_elf(const std::string& path, const std::string& function,
                           std::span<const uint8_t> code, uint64_t load_address);

}  // namespace sonde::format
