#include "pipeline/recording_columns.hpp"

#include <traceevent/event-parse.h>

#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>

#include "base/bytes.hpp"
#include "output/script/script_printer.hpp"
#include "output/script/script_symbols.hpp"
#include "pipeline/script_run.hpp"
#include "session/session.hpp"
#include "session/tracepoint_formats.hpp"
#include "tracedat/reader.hpp"
#include "tracedat/record_merger.hpp"
#include "unwind/dwarf_unwinder.hpp"

namespace sonde::pipeline {

namespace {

// Names to dense codes, each name stored once.
class NameCodes {
 public:
  explicit NameCodes(std::vector<std::string>& names) : names_(names) {}
  int32_t code(std::string_view name) {
    auto found = codes_.find(name);
    if (found != codes_.end()) return found->second;
    auto code = static_cast<int32_t>(names_.size());
    names_.emplace_back(name);
    codes_.emplace(std::string(name), code);
    return code;
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  std::vector<std::string>& names_;
  std::unordered_map<std::string, int32_t, Hash, std::equal_to<>> codes_;
};

struct StackHash {
  size_t operator()(const std::vector<int32_t>& frames) const {
    size_t hash = frames.size();
    for (int32_t frame : frames) hash = hash * 1000003u ^ static_cast<uint32_t>(frame);
    return hash;
  }
};

class SampleCollector : public session::SessionVisitor {
 public:
  SampleCollector(SampleColumns& out, session::Session& session, output::ScriptSymbols& symbols, bool stacks,
                  bool srclines)
      : out_(out),
        session_(session),
        symbols_(symbols),
        stacks_(stacks),
        srclines_(srclines),
        events_(out.event_names),
        symbol_names_(out.symbol_names),
        dso_names_(out.dso_names),
        srcline_names_(out.srcline_names) {}

  void on_sample(const session::SampleEvent& sample) override {
    const perfdata::Sample& s = sample.sample;
    out_.time.push_back(s.time);
    out_.period.push_back(s.has(PERF_SAMPLE_PERIOD) ? s.period : sample.event.attr.sample_period);
    out_.ip.push_back(s.ip);
    out_.pid.push_back(static_cast<int32_t>(s.pid));
    out_.tid.push_back(static_cast<int32_t>(s.tid));
    out_.cpu.push_back(s.has(PERF_SAMPLE_CPU) ? static_cast<int32_t>(s.cpu) : -1);
    if (sample.event_index >= event_codes_.size()) event_codes_.resize(sample.event_index + 1, -1);
    int32_t& event = event_codes_[sample.event_index];
    if (event < 0) event = events_.code(session::event_name(sample.event));
    out_.event.push_back(event);
    out_.frame.push_back(frame_of(output::locate_sample_ip(session_.machine(), sample)));
    if (!stacks_ || !s.has(PERF_SAMPLE_CALLCHAIN)) {
      out_.stack.push_back(-1);
      return;
    }
    chain_.clear();
    for (const session::Location& loc : sample.callchain) chain_.push_back(frame_of(loc));
    auto [found, fresh] = stack_ids_.try_emplace(chain_, static_cast<int32_t>(out_.stack_offsets.size() - 1));
    if (fresh) {
      out_.stack_frames.insert(out_.stack_frames.end(), chain_.begin(), chain_.end());
      out_.stack_offsets.push_back(static_cast<int64_t>(out_.stack_frames.size()));
    }
    out_.stack.push_back(found->second);
  }

 private:
  int32_t frame_of(const session::Location& loc) {
    const bool mapped = loc.map != nullptr && loc.dso != nullptr;
    const uint64_t key_dso = mapped ? loc.dso->id : UINT32_MAX;
    const uint64_t address = mapped ? loc.dso_address : loc.ip;
    auto [found, fresh] = frames_.try_emplace({key_dso, address}, static_cast<int32_t>(out_.frame_ip.size()));
    if (!fresh) return found->second;
    out_.frame_ip.push_back(loc.ip);
    int32_t symbol = -1, dso = -1;
    if (mapped) {
      dso = dso_names_.code(loc.dso->long_name);
      const output::ResolvedSymbol& resolved = symbols_.resolve(*loc.dso, loc.dso_address);
      if (resolved.found) symbol = symbol_names_.code(resolved.name);
    }
    out_.frame_symbol.push_back(symbol);
    out_.frame_dso.push_back(dso);
    if (srclines_) {
      std::string_view line = mapped ? symbols_.srcline(*loc.dso, loc.dso_address) : std::string_view();
      out_.frame_srcline.push_back(line.empty() ? -1 : srcline_names_.code(line));
    }
    return found->second;
  }

  struct PairHash {
    size_t operator()(const std::pair<uint64_t, uint64_t>& key) const {
      return std::hash<uint64_t>{}(key.first * 0x9e3779b97f4a7c15ull ^ key.second);
    }
  };

  SampleColumns& out_;
  session::Session& session_;
  output::ScriptSymbols& symbols_;
  bool stacks_, srclines_;
  NameCodes events_, symbol_names_, dso_names_, srcline_names_;
  std::vector<int32_t> event_codes_;  // by event index
  std::unordered_map<std::pair<uint64_t, uint64_t>, int32_t, PairHash> frames_;
  std::unordered_map<std::vector<int32_t>, int32_t, StackHash> stack_ids_;
  std::vector<int32_t> chain_;
};

int64_t sign_extended(uint64_t value, int size) {
  if (size <= 0 || size >= 8) return static_cast<int64_t>(value);
  const unsigned shift = 64 - 8 * static_cast<unsigned>(size);
  return static_cast<int64_t>(value << shift) >> shift;
}

class TracepointCollector : public session::SessionVisitor {
 public:
  TracepointCollector(TracepointColumns& out, uint64_t config, const tep_event* format)
      : out_(out), config_(config), comms_(out.comm_names) {
    for (const tep_format_field* field = format->format.fields; field != nullptr; field = field->next) {
      TracepointColumns::Field column;
      column.name = field->name;
      if (field->flags & TEP_FIELD_IS_ARRAY)
        column.kind = (field->flags & TEP_FIELD_IS_STRING) ? TracepointColumns::Field::Kind::text
                                                           : TracepointColumns::Field::Kind::bytes;
      else if (field->flags & TEP_FIELD_IS_SIGNED)
        column.kind = TracepointColumns::Field::Kind::signed_number;
      out_.fields.push_back(std::move(column));
      formats_.push_back(field);
    }
  }

  void on_sample(const session::SampleEvent& sample) override {
    if (sample.event.attr.type != PERF_TYPE_TRACEPOINT || sample.event.attr.config != config_) return;
    const perfdata::Sample& s = sample.sample;
    add(s.raw, s.time, static_cast<int32_t>(s.pid), static_cast<int32_t>(s.tid),
        s.has(PERF_SAMPLE_CPU) ? static_cast<int32_t>(s.cpu) : -1, sample.thread.comm);
  }

  // One row: the payload's fields and where it was seen.
  void add(std::span<const uint8_t> payload, uint64_t time, int32_t pid, int32_t tid, int32_t cpu,
           std::string_view comm) {
    out_.time.push_back(time);
    out_.pid.push_back(pid);
    out_.tid.push_back(tid);
    out_.cpu.push_back(cpu);
    out_.comm.push_back(comms_.code(comm));
    const size_t size = payload.size();
    const uint8_t* raw = payload.data();
    for (size_t i = 0; i < formats_.size(); ++i) {
      const tep_format_field* field = formats_[i];
      TracepointColumns::Field& column = out_.fields[i];
      size_t offset = static_cast<size_t>(field->offset), length = static_cast<size_t>(field->size);
      if (field->flags & TEP_FIELD_IS_DYNAMIC) {
        uint64_t location = offset + 4 <= size ? load_unsigned(raw + offset, 4) : 0;
        length = location >> 16;
        offset = location & 0xffff;
        if (field->flags & TEP_FIELD_IS_RELATIVE) offset += static_cast<size_t>(field->offset + field->size);
      }
      if (offset > size) offset = size;
      if (length > size - offset) length = size - offset;
      const uint8_t* bytes = raw + offset;
      switch (column.kind) {
        case TracepointColumns::Field::Kind::text:
          column.texts.emplace_back(reinterpret_cast<const char*>(bytes),
                                    strnlen(reinterpret_cast<const char*>(bytes), length));
          break;
        case TracepointColumns::Field::Kind::bytes:
          column.texts.emplace_back(reinterpret_cast<const char*>(bytes), length);
          break;
        case TracepointColumns::Field::Kind::signed_number:
          column.signed_values.push_back(length == static_cast<size_t>(field->size)
                                             ? sign_extended(load_unsigned(bytes, field->size), field->size)
                                             : 0);
          break;
        case TracepointColumns::Field::Kind::unsigned_number:
          column.unsigned_values.push_back(
              length == static_cast<size_t>(field->size) ? load_unsigned(bytes, field->size) : 0);
          break;
      }
    }
  }

 private:
  TracepointColumns& out_;
  uint64_t config_;
  NameCodes comms_;
  std::vector<const tep_format_field*> formats_;
};

}  // namespace

Result<SampleColumns> read_sample_columns(const std::string& path, bool stacks, bool srclines,
                                          Diagnostics& diagnostics) {
  if (tracedat::is_trace_dat(path))
    return failf("{} is a trace.dat, whose events are tracepoints: read them with tracepoints(name)", path);
  auto session = session::Session::open(path, diagnostics);
  if (!session) return tl::unexpected(session.error());
  output::ScriptSymbols symbols({});
  unwind::DwarfUnwinder unwinder([&symbols](const session::Dso& dso) { return symbols.elf_path(dso); },
                                 kernel_max_stack());
  if (stacks) session->set_unwinder(&unwinder);
  // Without stacks only the sampled ip is placed: the callchains' frames are not looked up.
  session->set_locate_callchains(stacks);
  SampleColumns columns;
  SampleCollector collector(columns, *session, symbols, stacks, srclines);
  if (auto processed = session->process(collector); !processed) return tl::unexpected(processed.error());
  return columns;
}

namespace {

// A trace.dat's records of `event` (its top buffer's), in trace-cmd report's order.
Result<TracepointColumns> trace_dat_tracepoint_columns(const std::string& path, const std::string& event) {
  auto reader = tracedat::TraceDatReader::open(path);
  if (!reader) return tl::unexpected(reader.error().with_context(path));
  size_t colon = event.find(':');
  if (colon == std::string::npos) return failf("name a tracepoint as system:event, not '{}'", event);
  (*reader)->load_all_events();
  tep_handle* tep = (*reader)->tep();
  const tep_event* format =
      tep_find_event_by_name(tep, event.substr(0, colon).c_str(), event.substr(colon + 1).c_str());
  if (format == nullptr) return failf("{} has no tracepoint {}", path, event);
  TracepointColumns columns;
  TracepointCollector collector(columns, 0, format);
  tracedat::RecordMerger merger(**reader);
  size_t buffer = 0;
  while (const tep_record* record = merger.next(buffer)) {
    if (buffer != 0) continue;
    const tep_event* of = (*reader)->record_format(*record);
    if (of != format) continue;
    auto* mutable_record = const_cast<tep_record*>(record);  // libtraceevent reads only
    int pid = tep_data_pid(tep, mutable_record);
    collector.add(std::span(static_cast<const uint8_t*>(record->data), static_cast<size_t>(record->size)),
                  record->ts, pid, pid, record->cpu, tep_data_comm_from_pid(tep, pid));
  }
  if (!merger.problems().empty()) return failf("{}: {}", path, merger.problems().front());
  return columns;
}

}  // namespace

Result<TracepointColumns> read_tracepoint_columns(const std::string& path, const std::string& event,
                                                  Diagnostics& diagnostics) {
  if (tracedat::is_trace_dat(path)) return trace_dat_tracepoint_columns(path, event);
  auto session = session::Session::open(path, diagnostics);
  if (!session) return tl::unexpected(session.error());
  Bytes blob = session->reader().tracing_data();
  if (blob.empty()) return failf("{} has no tracepoint formats (it records no tracepoints)", path);
  auto formats = session::TracepointFormats::parse(blob);
  if (!formats) return tl::unexpected(formats.error().with_context(path));
  std::optional<uint64_t> config;
  std::vector<std::string> recorded;
  for (const auto& attr : session->reader().attrs().events()) {
    if (attr.attr.type != PERF_TYPE_TRACEPOINT) continue;
    const tep_event* format = formats->find(attr.attr.config);
    if (format == nullptr) continue;
    std::string name = session::TracepointFormats::qualified_name(format);
    if (name == event) config = attr.attr.config;
    recorded.push_back(name);
  }
  if (!config) {
    std::string list;
    for (const std::string& name : recorded) list += (list.empty() ? "" : ", ") + name;
    return failf("{} records no tracepoint {} (it has: {})", path, event, list.empty() ? "none" : list);
  }
  TracepointColumns columns;
  TracepointCollector collector(columns, *config, formats->find(*config));
  if (auto processed = session->process(collector); !processed) return tl::unexpected(processed.error());
  return columns;
}

}  // namespace sonde::pipeline
