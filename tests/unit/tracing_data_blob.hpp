#pragma once
// perf's TRACING_DATA blob (version 0.6, little endian) made by hand around one event format,
// for the tests of what reads it.
#include <cstdint>
#include <cstring>
#include <string>

#include "base/bytes.hpp"

namespace sonde::test {

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// `format` (an events/SYSTEM/NAME/format file's text) as the one event of `system`; without
// the kallsyms, printk and cmdlines tables when `cut_after_events`.
inline std::string tracing_data_blob(const std::string& system, const char* format,
                                     bool cut_after_events = false) {
  std::string out = "\x17\x08\x44tracing";
  out += std::string("0.6") + '\0';
  out += '\0';  // little endian
  out += static_cast<char>(8);
  put<uint32_t>(out, 4096);
  out += std::string("header_page") + '\0';
  put<uint64_t>(out, 0);
  out += std::string("header_event") + '\0';
  put<uint64_t>(out, 0);
  put<uint32_t>(out, 0);  // no ftrace formats
  put<uint32_t>(out, 1);  // one system
  out += system + '\0';
  put<uint32_t>(out, 1);
  put<uint64_t>(out, std::strlen(format));
  out += format;
  if (cut_after_events) return out;
  put<uint32_t>(out, 0);  // kallsyms
  put<uint32_t>(out, 0);  // printk
  put<uint64_t>(out, 0);  // cmdlines
  return out;
}

inline sonde::Bytes bytes_of(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

}  // namespace sonde::test
