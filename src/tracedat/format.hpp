#pragma once
// trace-cmd's trace.dat constants (Documentation/trace-cmd/trace-cmd.dat.v6.5 and v7.5).
#include <cstdint>
#include <string_view>

namespace sonde::tracedat {

inline constexpr std::string_view kMagic{"\x17\x08\x44tracing", 10};

// Option ids (both versions; v7 also uses some of them as section ids).
enum OptionId : uint16_t {
  kOptionDone = 0,
  kOptionDate = 1,
  kOptionCpuStat = 2,
  kOptionBuffer = 3,
  kOptionTraceClock = 4,
  kOptionUname = 5,
  kOptionHook = 6,
  kOptionOffset = 7,
  kOptionCpuCount = 8,
  kOptionVersion = 9,
  kOptionProcMaps = 10,
  kOptionTraceId = 11,
  kOptionTimeShift = 12,
  kOptionGuest = 13,
  kOptionTsc2Nsec = 14,
  kOptionStrings = 15,
  kOptionHeaderInfo = 16,
  kOptionFtraceEvents = 17,
  kOptionEventFormats = 18,
  kOptionKallsyms = 19,
  kOptionPrintk = 20,
  kOptionCmdlines = 21,
  kOptionBufferText = 22,
};

inline constexpr uint16_t kSectionCompressed = 1;  // v7 section header flag

}  // namespace sonde::tracedat
