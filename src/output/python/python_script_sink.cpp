#include "output/python/python_script_sink.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <unistd.h>

#include <charconv>
#include <csignal>
#include <cstring>

#include "base/file.hpp"
#include "base/unique_fd.hpp"
#include "format/perf_regs.hpp"
#include "output/script/mem_data_src.hpp"
#include "symbols/disassembler.hpp"

namespace sonde::output::python {

namespace {

volatile std::sig_atomic_t stop_signal = 0;

// The first SIGINT or SIGTERM ends the replay and runs trace_end; a second one (the disposition
// is reset) ends sonde at once, for a handler that never returns.
void request_stop(int number) { stop_signal = number; }

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = request_stop;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

std::string executable_directory() {
  char path[PATH_MAX];
  ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return ".";
  std::string text(path, static_cast<size_t>(length));
  return text.substr(0, text.rfind('/'));
}

// perf's regs_map text: "%5s:0x%lx " for each register of the mask; "" when none were dumped.
std::string script_registers_text(const perfdata::Regs& regs, uint64_t mask) {
  std::string text;
  if (regs.abi == 0) return text;
  size_t index = 0;
  for (unsigned reg = 0; reg < 64; ++reg) {
    if (!(mask >> reg & 1)) continue;
    uint64_t value = index < regs.values.size() ? regs.values[index] : 0;
    ++index;
    text += fmt::format("{:>5}:{:#x} ", format::x86_register_name(reg), value);
  }
  return text;
}

}  // namespace

std::string script_exec_path() {
  // Installed: <prefix>/bin/sonde and <prefix>/share/sonde; built: the source tree's share/sonde.
  std::string installed = executable_directory() + "/../share/sonde";
  if (is_directory(installed + "/scripts/python")) return installed;
  return SONDE_SOURCE_SHARE_DIR;
}

struct PythonScriptSink::Details final : SampleDetails {
  Details(session::Session& s, ScriptSymbols& y, unsigned stack) : session(s), symbols(y), max_stack(stack) {}

  void reset(const session::SampleEvent& next) {
    sample = &next;
    place_done = addr_done = frames_done = datasrc_done = registers_done = false;
  }

  PlaceFacts place_of(const session::Location& loc) {
    PlaceFacts facts;
    if (loc.map == nullptr || loc.dso == nullptr) return facts;
    facts.has_map = true;
    facts.dso = loc.dso->long_name;
    facts.dso_build_id = loc.dso->build_id;
    facts.map_start = loc.map->start;
    facts.map_end = symbols.map_end(*loc.map);
    const ResolvedSymbol& symbol = symbols.resolve(*loc.dso, loc.dso_address);
    if (symbol.found) {
      facts.has_symbol = true;
      facts.symbol = symbol.name;
      facts.symbol_offset = symbol.offset;
    }
    return facts;
  }

  const PlaceFacts& place() override {
    if (!place_done) {
      ip_place = place_of(locate_sample_ip(session.machine(), *sample));
      place_done = true;
    }
    return ip_place;
  }

  const PlaceFacts* addr_place() override {
    if (!addr_correlates_sym(sample->event.attr)) return nullptr;
    if (!addr_done) {
      sample_addr_place = place_of(locate_sample_addr(session.machine(), *sample));
      addr_done = true;
    }
    return &sample_addr_place;
  }

  std::span<const CallchainFrame> callchain() override {
    if (frames_done) return frames;
    frames_done = true;
    frames.clear();
    size_t count = std::min<size_t>(sample->callchain.size(), max_stack);
    for (size_t i = 0; i < count; ++i) {
      const session::Location& loc = sample->callchain[i];
      CallchainFrame frame;
      frame.ip = loc.ip;
      if (loc.map != nullptr && loc.dso != nullptr) {
        frame.has_map = true;
        frame.dso = loc.dso->long_name;
        const ResolvedSymbol& symbol = symbols.resolve(*loc.dso, loc.dso_address);
        if (symbol.found) {
          frame.has_symbol = true;
          frame.symbol = symbol.name;
          frame.symbol_start = symbol.elf_address - symbol.offset;
          frame.symbol_end = frame.symbol_start + symbol.size;
          frame.binding = symbol.binding;
          frame.symbol_offset = symbol.offset;
        }
      }
      frames.push_back(frame);
    }
    return frames;
  }

  std::string_view datasrc_decode() override {
    if (!datasrc_done) {
      datasrc = mem_data_src_text(sample->sample.has(PERF_SAMPLE_DATA_SRC) ? sample->sample.data_src
                                                                           : kMemDataSourceNone);
      datasrc_done = true;
    }
    return datasrc;
  }

  void make_registers() {
    if (registers_done) return;
    registers_done = true;
    const perf_event_attr& attr = sample->event.attr;
    intr = script_registers_text(sample->sample.regs_intr, attr.sample_regs_intr);
    user = script_registers_text(sample->sample.regs_user, attr.sample_regs_user);
  }
  std::string_view intr_registers() override {
    make_registers();
    return intr;
  }
  std::string_view user_registers() override {
    make_registers();
    return user;
  }

  std::pair<std::string, unsigned> srcline() override {
    const session::Location loc = locate_sample_ip(session.machine(), *sample);
    if (loc.map == nullptr || loc.dso == nullptr) return {};
    std::string_view text = symbols.srcline(*loc.dso, loc.dso_address);
    // "file.c:12"; perf's "dso[addr]" fallback names no file.
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || text.ends_with(']')) return {};
    unsigned line = 0;
    std::from_chars(text.data() + colon + 1, text.data() + text.size(), line);
    return {std::string(text.substr(0, colon)), line};
  }

  // The instruction at the sample's ip, from its file (perf reads user code only).
  std::string instruction_bytes() override {
    const session::Location loc = locate_sample_ip(session.machine(), *sample);
    if (loc.map == nullptr || loc.dso == nullptr || loc.dso->is_kernel()) return {};
    std::string path = symbols.elf_path(*loc.dso);
    if (path.empty()) return {};
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return {};
    char bytes[16];
    ssize_t got = ::pread(fd.get(), bytes, sizeof bytes, static_cast<off_t>(loc.map->dso_address(loc.ip)));
    if (got <= 0) return {};
    auto decoded = symbols::disassemble(std::string_view(bytes, static_cast<size_t>(got)), loc.ip, EM_X86_64);
    if (!decoded || decoded->empty()) return {};
    return std::string(bytes, decoded->front().size);
  }

  session::Session& session;
  ScriptSymbols& symbols;
  unsigned max_stack;
  const session::SampleEvent* sample = nullptr;
  bool place_done = false, addr_done = false, frames_done = false, datasrc_done = false,
       registers_done = false;
  PlaceFacts ip_place, sample_addr_place;
  std::vector<CallchainFrame> frames;
  std::string datasrc, intr, user;
};

Result<std::unique_ptr<PythonScriptSink>> PythonScriptSink::load(const PythonScriptOptions& options,
                                                                 session::Session& session,
                                                                 ScriptSymbols& symbols) {
  std::string plugin = executable_directory() + "/sonde-python.so";
  if (::access(plugin.c_str(), R_OK) != 0) {
    std::string installed = executable_directory() + "/../lib/sonde/sonde-python.so";
    if (::access(installed.c_str(), R_OK) == 0) plugin = installed;
  }
  // Global, so the Python extension modules a script imports find libpython's symbols.
  void* handle = ::dlopen(plugin.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr)
    return failf("cannot load sonde's Python script host {}: {}; build it (make) or reinstall sonde", plugin,
                 ::dlerror());
  auto create = reinterpret_cast<CreateScriptEngine>(::dlsym(handle, kCreateScriptEngineSymbol));
  if (create == nullptr)
    return failf("{} is not sonde's Python script host (no {})", plugin, kCreateScriptEngineSymbol);
  if (::getenv("PERF_EXEC_PATH") == nullptr) ::setenv("PERF_EXEC_PATH", script_exec_path().c_str(), 1);
  std::string error;
  std::unique_ptr<ScriptEngine> engine(create({options.script, options.args}, error));
  if (!engine) return fail(error);
  auto details = std::make_unique<Details>(session, symbols, options.max_stack);
  install_stop_handlers();
  std::unique_ptr<PythonScriptSink> sink(new PythonScriptSink(std::move(engine), std::move(details)));
  sink->use_callchain_ = options.use_callchain;
  return sink;
}

PythonScriptSink::PythonScriptSink(std::unique_ptr<ScriptEngine> engine, std::unique_ptr<Details> details)
    : engine_(std::move(engine)), details_(std::move(details)) {}

PythonScriptSink::~PythonScriptSink() = default;

std::optional<int> PythonScriptSink::begin() {
  status_ = engine_->begin();
  return status_;
}

bool PythonScriptSink::on_sample(const session::SampleEvent& sample, std::string_view event_name,
                                 const tep_event* tracepoint) {
  if (status_ || stop_signal != 0) return false;
  const perfdata::Sample& s = sample.sample;
  const perfdata::EventAttr& event = sample.event;
  std::vector<ReadValue>& values = read_values_;
  values.clear();
  if (s.has(PERF_SAMPLE_READ))
    for (size_t i = 0; i < s.read.nr; ++i) {
      perfdata::ReadValues::Value value = s.read.value(i);
      values.push_back({value.id, value.value, value.lost});
    }
  SampleFacts facts{
      .event_name = event_name,
      .tracepoint = tracepoint,
      // perf 6.1's struct perf_event_attr: PERF_ATTR_SIZE_VER7's 128 bytes.
      .attr = std::span(reinterpret_cast<const uint8_t*>(&event.attr), size_t{PERF_ATTR_SIZE_VER7}),
      .raw = s.raw,
      .comm = sample.thread.comm,
      .sample_type = event.attr.sample_type,
      .read_format = event.attr.read_format,
      .pid = s.pid,
      .tid = s.tid,
      .cpu = s.has(PERF_SAMPLE_CPU) ? s.cpu : UINT32_MAX,
      .ip = s.ip,
      .time = s.time,
      // perf's period of a sample without PERIOD: the attr's sample_period (or frequency).
      .period = s.has(PERF_SAMPLE_PERIOD) ? s.period : event.attr.sample_period,
      .phys_addr = s.phys_addr,
      .addr = s.addr,
      .weight = s.weight,
      .transaction = s.transaction,
      .data_src = s.has(PERF_SAMPLE_DATA_SRC) ? s.data_src : kMemDataSourceNone,
      .cpumode = sample.cpumode,
      .values = values,
      .time_enabled = s.read.time_enabled,
      .time_running = s.read.time_running,
      .has_callchain = use_callchain_ && s.has(PERF_SAMPLE_CALLCHAIN),
  };
  details_->reset(sample);
  status_ = engine_->sample(facts, *details_);
  return !status_;
}

int PythonScriptSink::end() {
  if (!status_) status_ = engine_->end();
  engine_.reset();  // the interpreter finalized, its output flushed
  return status_.value_or(0);
}

}  // namespace sonde::output::python
