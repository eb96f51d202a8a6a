#pragma once
// perf script's output fields: which fields each kind of event prints by default, the -F
// grammar that changes them (`f1,f2`, `+f`/`-f`, `type:f1,f2`), and the fit to a file's events
// (fields the samples cannot fill are dropped, or are an error when asked for by name).
#include <linux/perf_event.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "perfdata/attrs.hpp"

namespace sonde::output {

// One bit per field, in perf's order (the bit values are ours).
enum ScriptField : uint64_t {
  kFieldComm = 1ull << 0,
  kFieldTid = 1ull << 1,
  kFieldPid = 1ull << 2,
  kFieldTime = 1ull << 3,
  kFieldCpu = 1ull << 4,
  kFieldEvent = 1ull << 5,
  kFieldTrace = 1ull << 6,
  kFieldIp = 1ull << 7,
  kFieldSym = 1ull << 8,
  kFieldDso = 1ull << 9,
  kFieldAddr = 1ull << 10,
  kFieldSymoff = 1ull << 11,
  kFieldSrcline = 1ull << 12,
  kFieldPeriod = 1ull << 13,
  kFieldIregs = 1ull << 14,
  kFieldBrstack = 1ull << 15,
  kFieldBrstacksym = 1ull << 16,
  kFieldDataSrc = 1ull << 17,
  kFieldWeight = 1ull << 18,
  kFieldBpfOutput = 1ull << 19,
  kFieldCallindent = 1ull << 20,
  kFieldInsn = 1ull << 21,
  kFieldInsnlen = 1ull << 22,
  kFieldBrstackinsn = 1ull << 23,
  kFieldBrstackoff = 1ull << 24,
  kFieldSynth = 1ull << 25,
  kFieldPhysAddr = 1ull << 26,
  kFieldUregs = 1ull << 27,
  kFieldMetric = 1ull << 28,
  kFieldMisc = 1ull << 29,
  kFieldSrccode = 1ull << 30,
  kFieldIpc = 1ull << 31,
  kFieldTod = 1ull << 32,
  kFieldDataPageSize = 1ull << 33,
  kFieldCodePageSize = 1ull << 34,
  kFieldInsLat = 1ull << 35,
};

// perf's output types: the attr types below PERF_TYPE_MAX, then synthesized and other PMUs.
enum class OutputType : uint8_t {
  hardware,
  software,
  tracepoint,
  hw_cache,
  raw,
  breakpoint,
  synth,
  other,
  count
};
OutputType output_type(uint32_t attr_type);
std::string_view output_type_name(OutputType type);

struct TypeFields {
  uint64_t fields = 0;
  uint64_t invalid = 0;          // fields that make no sense for the type
  uint64_t user_set_fields = 0;  // named in an untyped -F: missing sample data is an error
  bool user_set = false;
  bool wildcard_set = false;
};

struct ScriptFields {
  std::array<TypeFields, static_cast<size_t>(OutputType::count)> types;
  bool print_flags = false;  // the `flags` pseudo-field

  const TypeFields& of(uint32_t attr_type) const {
    return types[static_cast<size_t>(output_type(attr_type))];
  }
  TypeFields& of(uint32_t attr_type) { return types[static_cast<size_t>(output_type(attr_type))]; }
  bool has(uint32_t attr_type, uint64_t field) const { return of(attr_type).fields & field; }
};

// perf script's defaults.
ScriptFields default_script_fields();

// Applies one -F argument; `warnings` collects perf's "not valid for ... events" notes.
Result<void> apply_field_spec(ScriptFields& fields, std::string_view spec,
                              std::vector<std::string>& warnings);

// perf's check of the fields against the file's events (its first event of each type): drops
// defaults the samples cannot fill, rejects named fields they cannot. Decides whether
// callchains print (`use_callchain` in: not -G; out: and some event has callchains) and adds
// ip/sym/symoff/dso to tracepoints that carry callchains.
Result<void> fit_fields_to_events(ScriptFields& fields, const std::vector<perfdata::EventAttr>& events,
                                  bool& use_callchain);

// The fields sonde cannot print yet; an -F naming one of them is refused rather than ignored.
uint64_t unsupported_fields();

}  // namespace sonde::output
