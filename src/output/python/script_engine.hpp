#pragma once
// The boundary between sonde and its Python script host (script -s, perf's Python scripting).
// The host embeds CPython and is a plugin, sonde-python.so (src/python_host), loaded only when a
// script runs, so no other command pays for loading libpython. The plugin sees samples through
// these plain types, and asks SampleDetails for what costs time to work out (symbols,
// callchains), only when the script's handlers take it.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct tep_event;

namespace sonde::output::python {

// Where an address falls, as perf's addr_location says it: its map's DSO, and the symbol.
struct PlaceFacts {
  bool has_map = false;
  std::string_view dso;           // the DSO's name as perf's dict names it
  std::string_view dso_build_id;  // hex, "" when unknown
  uint64_t map_start = 0, map_end = 0;
  bool has_symbol = false;
  std::string_view symbol;
  uint64_t symbol_offset = 0;
};

// One callchain entry as perf's dicts hold it.
struct CallchainFrame {
  uint64_t ip = 0;
  bool has_symbol = false;
  uint64_t symbol_start = 0, symbol_end = 0;  // in the DSO's address space
  int binding = 0;                            // STB_*
  std::string_view symbol;
  bool has_map = false;
  uint64_t symbol_offset = 0;
  std::string_view dso;
};

struct ReadValue {
  uint64_t id = 0, value = 0, lost = 0;
};

// The sample's recorded fields, cheap to gather; valid during the call.
struct SampleFacts {
  std::string_view event_name;    // perf's evsel name: "sched:sched_switch", "cpu-clock"
  const tep_event* tracepoint;    // the tracepoint's format; nullptr for other events
  std::span<const uint8_t> attr;  // the event's perf_event_attr as recorded
  std::span<const uint8_t> raw;   // PERF_SAMPLE_RAW
  std::string_view comm;          // the thread's comm at the sample
  uint64_t sample_type = 0;       // the attr's
  uint64_t read_format = 0;       // the attr's
  uint32_t pid = 0, tid = 0;      //
  uint32_t cpu = UINT32_MAX;      // UINT32_MAX when not sampled, as perf leaves it
  uint64_t ip = 0, time = 0, period = 0, phys_addr = 0, addr = 0, weight = 0, transaction = 0;
  uint64_t data_src = 0;              // PERF_MEM_DATA_SRC_NONE when not sampled, as perf fills it
  uint8_t cpumode = 0;                // PERF_RECORD_MISC_CPUMODE_MASK of the record
  std::span<const ReadValue> values;  // PERF_SAMPLE_READ (one, or the group's)
  uint64_t time_enabled = 0, time_running = 0;
  bool has_callchain = false;  // the sample carries a callchain (PERF_SAMPLE_CALLCHAIN), shown
};

// What the sample's dicts need beyond its fields, worked out when first asked.
class SampleDetails {
 public:
  virtual const PlaceFacts& place() = 0;  // of the sample's ip
  // Of the sample's addr, when it correlates to a symbol (perf's addr_al); nullptr otherwise.
  virtual const PlaceFacts* addr_place() = 0;
  virtual std::span<const CallchainFrame> callchain() = 0;  // leaf first, at most --max-stack
  virtual std::string_view datasrc_decode() = 0;            // perf's "|OP N/A|LVL ..." text
  virtual std::string_view intr_registers() = 0;            // "   AX:0x.. " each, "" when none
  virtual std::string_view user_registers() = 0;
  // perf_sample_srcline: the source file of the sample's ip ("" for none) and its line.
  virtual std::pair<std::string, unsigned> srcline() = 0;
  // perf_sample_insn: the bytes at the sample's ip, empty when they cannot be read.
  virtual std::string instruction_bytes() = 0;

 protected:
  ~SampleDetails() = default;
};

class ScriptEngine {
 public:
  virtual ~ScriptEngine() = default;
  // Each step returns the status to exit with when the script ended the run (sys.exit, an
  // exception, whose traceback is printed), or nullopt to go on.
  // Runs the script's top level, then its trace_begin().
  virtual std::optional<int> begin() = 0;
  virtual std::optional<int> sample(const SampleFacts& facts, SampleDetails& details) = 0;
  // trace_end(), then the interpreter is finalized (Python's buffered output flushed).
  virtual std::optional<int> end() = 0;
};

struct ScriptEngineOptions {
  std::string script;             // the path as given
  std::vector<std::string> args;  // the script's sys.argv[1:]
};

// The plugin's one entry point: nullptr with `error` set when the interpreter cannot start.
using CreateScriptEngine = ScriptEngine* (*)(const ScriptEngineOptions& options, std::string& error);
constexpr const char* kCreateScriptEngineSymbol = "sonde_create_python_engine";

}  // namespace sonde::output::python
