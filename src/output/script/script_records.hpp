#pragma once
// perf's one-line text of a kernel record ("PERF_RECORD_MMAP2 12/12: [0x...(0x...) @ 0x...
// fe:00 123 0]: r-xp /usr/bin/ls"), as perf script --show-*-events and -D print it.
#include <fmt/format.h>

#include <cstdint>
#include <string_view>

#include "format/record_view.hpp"
#include "perfdata/kernel_records.hpp"

namespace sonde::output {

// perf's record names: kernel records by the kernel's name, perf's own by its short names.
std::string_view perf_record_name(uint32_t type);

// Appends "PERF_RECORD_<NAME>" and the record's details, ending with a newline.
void append_record_text(const perfdata::RecordView& record, fmt::memory_buffer& out);

// A TEXT_POKE's details after its name: " ADDR SYM+0xOFF old len N new len M", then the old and
// the new bytes, 16 to a line. `symbol_offset` is perf's name+offset of the address, or "".
void append_text_poke_text(const perfdata::TextPokeRecord& poke, std::string_view symbol_offset,
                           fmt::memory_buffer& out);

// C's "%#lx": "0" for zero, "0x..." otherwise (fmt's {:#x} prints "0x0").
inline void append_c_alt_hex(fmt::memory_buffer& out, uint64_t value) {
  if (value == 0)
    out.push_back('0');
  else
    fmt::format_to(fmt::appender(out), "{:#x}", value);
}

}  // namespace sonde::output
