#include "output/script/script_printer.hpp"

#include <fmt/compile.h>

#include <algorithm>
#include <cstring>

#include "base/file.hpp"
#include "format/perf_regs.hpp"
#include "output/script/script_records.hpp"
#include "perfdata/kernel_records.hpp"

namespace sonde::output {

void ScriptOutput::hand_over() {
  if (buffer_.size() == 0) return;
  if (!failed_ && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) failed_ = true;
  buffer_.clear();
}

void ScriptOutput::flush() {
  if (buffer_.size() == 0) return;
  if (!failed_ && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) failed_ = true;
  if (!failed_ && std::fflush(file_) != 0) failed_ = true;
  buffer_.clear();
}

namespace {

bool has_callchain(const perfdata::EventAttr& event) {
  return event.attr.sample_type & PERF_SAMPLE_CALLCHAIN;
}

std::string_view dso_name(const session::Location& loc) {
  return loc.dso != nullptr ? std::string_view(loc.dso->long_name) : std::string_view("[unknown]");
}

}  // namespace

bool addr_correlates_sym(const perf_event_attr& attr) {
  return attr.type == PERF_TYPE_SOFTWARE &&
         (attr.config == PERF_COUNT_SW_PAGE_FAULTS || attr.config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
          attr.config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

session::Location locate_sample_addr(const session::Machine& machine, const session::SampleEvent& sample) {
  session::Location loc = machine.locate(sample.thread, sample.cpumode, sample.sample.addr);
  if (loc.map == nullptr) {
    uint8_t other = loc.kernel() ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL;
    session::Location fallback = machine.locate(sample.thread, other, sample.sample.addr);
    if (fallback.map != nullptr) loc = fallback;
  }
  return loc;
}

session::Location locate_sample_ip(const session::Machine& machine, const session::SampleEvent& sample) {
  if (!sample.sample.has(PERF_SAMPLE_CALLCHAIN) && !sample.callchain.empty()) return sample.callchain.front();
  return machine.locate(sample.thread, sample.cpumode, sample.sample.ip);
}

ScriptPrinter::ScriptPrinter(ScriptOptions options, session::Session& session, ScriptSymbols& symbols,
                             ScriptOutput& out)
    : options_(std::move(options)),
      session_(session),
      symbols_(symbols),
      out_(out),
      events_(session.reader().attrs().events()) {}

Result<void> ScriptPrinter::prepare() {
  // Marked prepared only when it worked: a failed preparation fails again at the next record.
  if (events_.size() != prepared_events_) {
    event_names_.clear();
    name_width_ = 0;
    for (const auto& event : events_) {
      event_names_.push_back(session::event_name(event));
      name_width_ = std::max(name_width_, event_names_.back().size());
    }
    if (auto fitted = fit_fields_to_events(options_.fields, events_, options_.use_callchain); !fitted)
      return tl::unexpected(fitted.error());
    if (!options_.switch_on.empty() || !options_.switch_off.empty()) {
      auto made = analysis::EventSwitch::make(options_.switch_on, options_.switch_off,
                                              options_.show_on_off_events, event_names_);
      if (!made) return tl::unexpected(made.error());
      event_switch_ = *made;
    }
    if (!options_.per_event_dump_prefix.empty())
      if (auto opened = open_event_dumps(); !opened) return opened;
    prepared_events_ = events_.size();
  }
  sonde::Bytes blob = session_.reader().tracing_data();
  if (blob.size() != tracing_data_size_) {
    auto parsed = session::TracepointFormats::parse(blob);
    if (!parsed) return tl::unexpected(parsed.error().with_context("tracing data"));
    formats_ = std::move(*parsed);
    tracing_data_size_ = blob.size();
  }
  return {};
}

bool ScriptPrinter::prepared() const {
  return events_.size() == prepared_events_ && session_.reader().tracing_data().size() == tracing_data_size_;
}

void ScriptPrinter::append_start(const LineStart& start, const perfdata::EventAttr& event, uint64_t fields) {
  fmt::memory_buffer& buf = out_.buffer();
  auto it = fmt::appender(buf);
  if (fields & kFieldComm) {
    std::string_view comm =
        start.thread != nullptr ? std::string_view(start.thread->comm) : std::string_view(":-1");
    if ((fields & kFieldIp) && has_callchain(event) && options_.use_callchain)
      fmt::format_to(it, FMT_COMPILE("{} "), comm);
    else
      fmt::format_to(it, FMT_COMPILE("{:>16} "), comm);
  }
  if ((fields & kFieldPid) && (fields & kFieldTid))
    fmt::format_to(it, FMT_COMPILE("{:5}/{:<5} "), start.pid, start.tid);
  else if (fields & kFieldPid)
    fmt::format_to(it, FMT_COMPILE("{:5} "), start.pid);
  else if (fields & kFieldTid)
    fmt::format_to(it, FMT_COMPILE("{:5} "), start.tid);
  if (fields & kFieldCpu) fmt::format_to(it, FMT_COMPILE("[{:03}] "), static_cast<int32_t>(start.cpu));
  if (fields & kFieldTime) {
    uint64_t time = start.time;
    if (options_.times == ScriptTimes::since_first) {
      if (first_time_ == 0) first_time_ = start.time;
      time = start.time - first_time_;
    } else if (options_.times == ScriptTimes::since_previous) {
      // As perf: unsigned, so an event older than the one before prints a wrapped difference.
      time = previous_time_ != 0 ? start.time - previous_time_ : 0;
      previous_time_ = start.time;
    }
    uint64_t seconds = time / 1000000000ull, nanos = time % 1000000000ull;
    if (options_.nanoseconds) {
      fmt::format_to(it, FMT_COMPILE("{:5}.{:09}: "), seconds, nanos);
    } else {
      char text[48];
      auto end = fmt::format_to_n(text, sizeof text, FMT_COMPILE("{}.{:06}"), seconds, nanos / 1000).out;
      fmt::format_to(it, FMT_COMPILE("{:>12}: "), std::string_view(text, static_cast<size_t>(end - text)));
    }
  }
}

void ScriptPrinter::append_symbol(const session::Location& loc, uint64_t fields,
                                  const ResolvedSymbol** resolved) {
  fmt::memory_buffer& buf = out_.buffer();
  const ResolvedSymbol* symbol = loc.dso != nullptr ? &symbols_.resolve(*loc.dso, loc.dso_address) : nullptr;
  if (resolved != nullptr) *resolved = symbol;
  buf.push_back(' ');
  if (symbol == nullptr || !symbol->found) {
    buf.append(std::string_view("[unknown]"));
    return;
  }
  buf.append(symbol->name);
  if (fields & kFieldSymoff) fmt::format_to(fmt::appender(buf), "+{:#x}", symbol->offset);
}

void ScriptPrinter::append_srcline(const session::Location& loc) {
  if (loc.dso == nullptr) return;
  std::string_view line = symbols_.srcline(*loc.dso, loc.dso_address);
  if (line.empty() || line.starts_with("??:0")) return;
  fmt::memory_buffer& buf = out_.buffer();
  buf.append(std::string_view("\n  "));
  buf.append(line);
}

void ScriptPrinter::append_frame(const session::Location& loc, uint64_t fields, bool unwound) {
  fmt::memory_buffer& buf = out_.buffer();
  // perf shows user frames at their offset in the file, kernel frames at their address.
  uint64_t shown =
      loc.map != nullptr && loc.dso != nullptr && !loc.dso->is_kernel() ? loc.dso_address : loc.ip;
  // perf 6.1 expands the frames of a DWARF unwind into their inline frames (and names each by
  // its DWARF function), not the kernel's callchain entries.
  if (unwound && options_.inline_frames && loc.dso != nullptr) {
    const ResolvedSymbol& symbol = symbols_.resolve(*loc.dso, loc.dso_address);
    if (symbol.found) {
      const auto& frames = symbols_.inline_frames(*loc.dso, loc.dso_address);
      if (!frames.empty()) {
        for (const ResolvedInline& frame : frames) {
          fmt::format_to(fmt::appender(buf), "\t{:16x}", shown);
          if (fields & kFieldSym) {
            fmt::format_to(fmt::appender(buf), " {}", frame.function);
            if (fields & kFieldSymoff) fmt::format_to(fmt::appender(buf), "+{:#x}", symbol.offset);
          }
          if ((fields & kFieldDso) && !frame.inlined)
            fmt::format_to(fmt::appender(buf), " ({})", dso_name(loc));
          if (fields & kFieldSrcline) append_srcline(loc);
          if (frame.inlined) buf.append(std::string_view(" (inlined)"));
          buf.push_back('\n');
        }
        return;
      }
    }
  }
  // A profile repeats the same frames millions of times: each distinct line is formatted once.
  bool inserted;
  uint32_t id = frame_line_ids_.intern({reinterpret_cast<uintptr_t>(loc.dso), shown, loc.dso_address, fields},
                                       inserted);
  if (!inserted) {
    auto [offset, size] = frame_lines_[id];
    buf.append(std::string_view(frame_line_text_.data() + offset, size));
    return;
  }
  size_t start = buf.size();
  fmt::format_to(fmt::appender(buf), "\t{:16x}", shown);
  if (fields & kFieldSym) append_symbol(loc, fields, nullptr);
  if (fields & kFieldDso) fmt::format_to(fmt::appender(buf), " ({})", dso_name(loc));
  if (fields & kFieldSrcline) append_srcline(loc);
  buf.push_back('\n');
  frame_lines_.push_back({frame_line_text_.size(), buf.size() - start});
  frame_line_text_.append(buf.data() + start, buf.size() - start);
}

void ScriptPrinter::append_frames(const session::SampleEvent& sample, uint64_t fields) {
  // perf walks the kernel's chain up to --max-stack entries: a context marker other than
  // kernel, user or hypervisor there discards the whole chain. The session placed every entry
  // of the chain, then the frames of a DWARF unwind (which limits itself to --max-stack).
  const perfdata::Sample& s = sample.sample;
  size_t shown_entries = 0, chain_entries = 0;
  for (size_t i = 0; i < s.callchain.size(); ++i) {
    uint64_t ip = s.callchain[i];
    if (ip < PERF_CONTEXT_MAX) {
      ++chain_entries;
      if (shown_entries < options_.max_stack) ++shown_entries;
    } else if (chain_entries < options_.max_stack && ip != PERF_CONTEXT_KERNEL && ip != PERF_CONTEXT_USER &&
               ip != PERF_CONTEXT_HV) {
      return;
    }
  }
  bool unwound = sample.unwound_from < sample.callchain.size();
  // A chain of markers only, and nothing unwound: perf prints no frames (the session stands
  // the sampled ip in for them).
  if (chain_entries == 0 && !unwound) return;
  size_t chain_end = sample.unwound_from;
  for (size_t i = 0; i < std::min(shown_entries, chain_end); ++i)
    append_frame(sample.callchain[i], fields, false);
  if (unwound)
    for (size_t i = chain_end; i < sample.callchain.size(); ++i)
      append_frame(sample.callchain[i], fields, true);
}

namespace {

// -F iregs/uregs as perf script prints them: the ABI, then each register of the event's mask
// with its value; nothing when the kernel dumped none (a kernel thread's user registers).
void append_registers(fmt::memory_buffer& buf, const perfdata::Regs& regs, uint64_t mask) {
  if (regs.abi == 0) return;
  fmt::format_to(fmt::appender(buf), " ABI:{} ", regs.abi);
  size_t index = 0;
  for (unsigned reg = 0; reg < 64; ++reg) {
    if (!(mask >> reg & 1)) continue;
    uint64_t value = index < regs.values.size() ? regs.values[index] : 0;
    ++index;
    fmt::format_to(fmt::appender(buf), "{:>5}:{:#x} ", format::x86_register_name(reg), value);
  }
}

// A BPF output event's data as perf script dumps it: a line break, then 8 bytes a line in hex and
// as characters ("BPF output: 0000: ..."), and the data again as a string when it is one
// (printable up to a NUL). No data: the line break alone.
void append_bpf_output(fmt::memory_buffer& buf, Bytes data) {
  buf.push_back('\n');
  constexpr size_t kPerLine = 8;
  bool printable = true, hit_nul = false;
  size_t line = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    if (i % kPerLine == 0) {
      fmt::format_to(fmt::appender(buf), "{:>17}", line == 0 ? "BPF output:" : "");
      fmt::format_to(fmt::appender(buf), " {:04x}:", i);
    }
    fmt::format_to(fmt::appender(buf), " {:02x}", data[i]);
    if (i % kPerLine != kPerLine - 1 && i != data.size() - 1) continue;
    size_t missing = kPerLine - 1 - i % kPerLine;
    for (size_t j = 0; j < missing; ++j) buf.append(std::string_view("   "));
    buf.append(std::string_view("  "));
    for (size_t j = i - i % kPerLine; j <= i; ++j) {
      unsigned char ch = data[j];
      if (hit_nul && ch) printable = false;
      // perf's ctype is the kernel's: Latin-1's upper half (from 0xa0) prints as it is.
      if ((ch >= 0x20 && ch < 0x7f) || ch >= 0xa0) {
        buf.push_back(static_cast<char>(ch));
        continue;
      }
      buf.push_back('.');
      if (!printable) continue;
      if (ch == '\0')
        hit_nul = true;
      else
        printable = false;
    }
    for (size_t j = 0; j < missing; ++j) buf.push_back(' ');
    buf.push_back('\n');
    ++line;
  }
  if (printable && hit_nul)
    fmt::format_to(fmt::appender(buf), "{:>17} \"{}\"\n", "BPF string:",
                   std::string_view(reinterpret_cast<const char*>(data.data()),
                                    strnlen(reinterpret_cast<const char*>(data.data()), data.size())));
}

}  // namespace

void ScriptPrinter::append_sample_ip(const session::SampleEvent& sample, uint64_t fields) {
  const session::Location loc = locate_sample_ip(session_.machine(), sample);
  fmt::memory_buffer& buf = out_.buffer();
  fmt::format_to(fmt::appender(buf), "{:16x}", sample.sample.ip);
  if (fields & kFieldSym) append_symbol(loc, fields, nullptr);
  if (fields & kFieldDso) fmt::format_to(fmt::appender(buf), " ({})", dso_name(loc));
  if (fields & kFieldSrcline) append_srcline(loc);
}

void ScriptPrinter::append_addr(const session::SampleEvent& sample, uint64_t fields) {
  fmt::memory_buffer& buf = out_.buffer();
  fmt::format_to(fmt::appender(buf), "{:16x}", sample.sample.addr);
  if (!addr_correlates_sym(sample.event.attr)) return;
  session::Location loc = locate_sample_addr(session_.machine(), sample);
  if (fields & kFieldSym) append_symbol(loc, fields, nullptr);
  if (fields & kFieldDso) fmt::format_to(fmt::appender(buf), " ({})", dso_name(loc));
}

bool ScriptPrinter::skip_place(const session::SampleEvent& sample) {
  const analysis::ScriptFilter& filter = options_.filter;
  const session::Location* at = sample.callchain.empty() ? nullptr : &sample.callchain.front();
  bool mapped = at != nullptr && at->map != nullptr && at->dso != nullptr;
  if (filter.skip_dso(mapped, mapped ? at->dso->short_name : "", mapped ? at->dso->long_name : ""))
    return true;
  if (!filter.filters_symbols) return false;
  const ResolvedSymbol* symbol = mapped ? &symbols_.resolve(*at->dso, at->dso_address) : nullptr;
  bool found = symbol != nullptr && symbol->found;
  std::string_view name = found ? symbol->name : std::string_view();
  // perf names a symbol's start by its address at run time: the sample's, less its offset.
  return filter.skip_symbol(found ? &name : nullptr, found ? at->ip - symbol->offset : 0, mapped,
                            at != nullptr ? at->ip : 0);
}

bool ScriptPrinter::dlfilter_drops(const session::SampleEvent& sample, bool early) {
  if (!dlfilter_host_) dlfilter_host_.emplace(session_, symbols_);
  const auto& described = dlfilter_host_->describe(sample, event_names_[sample.event_index].c_str());
  // What the filter prints goes to the same stdout: the lines before it go first.
  out_.hand_over();
  auto drops = options_.dlfilter->drops(early, described, *dlfilter_host_);
  if (!drops) {
    failure_ = drops.error();
    return true;
  }
  return *drops;
}

void ScriptPrinter::on_sample(const session::SampleEvent& sample) {
  const perfdata::Sample& s = sample.sample;
  // A pipe's header records have changed the events: prepare once they are all in (the first
  // record after them fails with the error when this cannot).
  if (!prepared() && !prepare()) return;
  if (out_.failed() || failure_) return;
  uint64_t fields = options_.fields.of(sample.event.attr.type).fields;
  if (fields == 0) return;
  if (options_.dlfilter && dlfilter_drops(sample, true)) return;
  const analysis::ScriptFilter& filter = options_.filter;
  if (filter.skip_time(s.has(PERF_SAMPLE_TIME) ? s.time : 0)) return;
  if (event_switch_.active() && event_switch_.discard(sample.event_index)) return;
  if (filter.skip_cpu(s.has(PERF_SAMPLE_CPU) ? s.cpu : UINT32_MAX)) return;
  if (filter.filters_threads() &&
      filter.skip_thread(sample.thread.comm, sample.thread.pid, sample.thread.tid))
    return;
  if (filter.filters_places() && skip_place(sample)) return;
  if (options_.dlfilter && dlfilter_drops(sample, false)) return;
  if (options_.sample_sink != nullptr) {
    if (sink_stopped_) return;
    const tep_event* tracepoint = sample.event.attr.type == PERF_TYPE_TRACEPOINT && formats_
                                      ? formats_->find(sample.event.attr.config)
                                      : nullptr;
    // What the printer has buffered (side-band records) goes out before the script prints.
    out_.flush();
    sink_stopped_ = !options_.sample_sink->on_sample(sample, event_names_[sample.event_index], tracepoint);
    return;
  }

  fmt::memory_buffer& buf = out_.buffer();
  const size_t line_start = buf.size();
  append_start({&sample.thread, static_cast<int32_t>(s.pid), static_cast<int32_t>(s.tid), s.cpu, s.time},
               sample.event, fields);
  if (fields & kFieldPeriod) fmt::format_to(fmt::appender(buf), FMT_COMPILE("{:10} "), s.period);
  if (fields & kFieldEvent)
    fmt::format_to(fmt::appender(buf), FMT_COMPILE("{:>{}}: "), event_names_[sample.event_index],
                   name_width_);
  if (options_.fields.print_flags) buf.append(std::string_view("                        "));
  if ((fields & kFieldTrace) && formats_ && s.has(PERF_SAMPLE_RAW)) {
    trace_text_.clear();
    formats_->append_info(static_cast<int>(s.cpu), s.raw, trace_text_);
    buf.append(trace_text_);
  }
  if (fields & kFieldAddr) append_addr(sample, fields);
  if (fields & kFieldWeight) fmt::format_to(fmt::appender(buf), "{:16}", s.weight);
  if (fields & kFieldIp) {
    if (options_.use_callchain && s.has(PERF_SAMPLE_CALLCHAIN)) {
      buf.push_back('\n');
      append_frames(sample, fields);
    } else {
      buf.push_back(' ');
      append_sample_ip(sample, fields);
    }
  }
  const perf_event_attr& attr = sample.event.attr;
  if (fields & kFieldIregs) append_registers(buf, s.regs_intr, attr.sample_regs_intr);
  if (fields & kFieldUregs) append_registers(buf, s.regs_user, attr.sample_regs_user);
  if ((fields & kFieldBpfOutput) && attr.type == PERF_TYPE_SOFTWARE &&
      attr.config == PERF_COUNT_SW_BPF_OUTPUT)
    append_bpf_output(buf, s.raw);
  if (fields & kFieldPhysAddr) fmt::format_to(fmt::appender(buf), "{:16x}", s.phys_addr);
  buf.push_back('\n');
  if (!event_dumps_.empty()) move_line_to_event_dump(sample.event_index, line_start);
  out_.line_done();
}

Result<void> ScriptPrinter::open_event_dumps() {
  for (size_t i = event_dumps_.size(); i < event_names_.size(); ++i) {
    EventDump dump;
    dump.path = fmt::format("{}.{}.dump", options_.per_event_dump_prefix, event_names_[i]);
    auto fd = open_output_file(dump.path);
    if (!fd) return tl::unexpected(fd.error());
    dump.file = ::fdopen(fd->get(), "w");
    if (dump.file == nullptr) return fail_errno(errno, fmt::format("cannot write {}", dump.path));
    fd->release();
    dump.out = std::make_unique<ScriptOutput>(dump.file);
    event_dumps_.push_back(std::move(dump));
  }
  return {};
}

void ScriptPrinter::move_line_to_event_dump(size_t event_index, size_t line_start) {
  fmt::memory_buffer& buf = out_.buffer();
  if (event_index >= event_dumps_.size()) return;
  EventDump& dump = event_dumps_[event_index];
  size_t size = buf.size() - line_start;
  dump.out->buffer().append(buf.data() + line_start, buf.data() + buf.size());
  dump.out->line_done();
  dump.samples++;
  dump.bytes += size;
  buf.resize(line_start);
}

std::vector<std::string> ScriptPrinter::event_dump_summary() {
  std::vector<std::string> lines;
  for (EventDump& dump : event_dumps_) {
    dump.out->flush();
    lines.push_back(fmt::format("Wrote {:.3f} MB {} ({} samples)",
                                static_cast<double>(dump.bytes) / (1024 * 1024), dump.path, dump.samples));
  }
  return lines;
}

ScriptPrinter::~ScriptPrinter() {
  for (EventDump& dump : event_dumps_) {
    dump.out.reset();  // flushes
    std::fclose(dump.file);
  }
}

bool ScriptPrinter::shows_record(uint32_t type) const {
  switch (type) {
    case PERF_RECORD_COMM:
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      return options_.show_task_events;
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      return options_.show_mmap_events;
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
      return options_.show_switch_events;
    case PERF_RECORD_LOST:
      return options_.show_lost_events;
    case PERF_RECORD_NAMESPACES:
      return options_.show_namespace_events;
    case PERF_RECORD_CGROUP:
      return options_.show_cgroup_events;
    case PERF_RECORD_KSYMBOL:
      return options_.show_bpf_events || options_.show_text_poke_events;
    case PERF_RECORD_BPF_EVENT:
      return options_.show_bpf_events;
    case PERF_RECORD_TEXT_POKE:
      return options_.show_text_poke_events;
    default:
      return false;
  }
}

Result<void> ScriptPrinter::on_record(const perfdata::RecordView& record, const perfdata::EventAttr* attr,
                                      const perfdata::SampleId& id) {
  // A pipe's header records change the events one by one: prepare after the last of them.
  if (!perfdata::PerfDataReader::changes_header(record.type()) && !prepared())
    if (auto fitted = prepare(); !fitted) return fitted;
  if (record.type() == perfdata::PERF_RECORD_FINISHED_ROUND && options_.show_round_events && !out_.failed()) {
    out_.buffer().append(std::string_view("PERF_RECORD_FINISHED_ROUND\n"));
    out_.line_done();
    return {};
  }
  if (!shows_record(record.type()) || !prepared() || events_.empty() || out_.failed()) return {};
  // perf takes the first event for a record whose sample_id names none (a zeroed trailer of a
  // synthesized record) and reads the trailer by it.
  const perfdata::EventAttr& event = attr != nullptr ? *attr : events_.front();
  perfdata::SampleId trailer = id;
  if (attr == nullptr && event.attr.sample_id_all) {
    if (auto decoded = perfdata::decode_sample_id(record, event.attr)) trailer = *decoded;
  }
  uint64_t sample_type = event.attr.sample_type;
  LineStart start{nullptr, -1, -1, UINT32_MAX, 0};
  if (trailer.present) {
    if (sample_type & PERF_SAMPLE_TID) {
      start.pid = static_cast<int32_t>(trailer.pid);
      start.tid = static_cast<int32_t>(trailer.tid);
    }
    if (sample_type & PERF_SAMPLE_CPU) start.cpu = trailer.cpu;
    if (sample_type & PERF_SAMPLE_TIME) start.time = trailer.time;
  }
  // The task the record is about names the line; perf falls back to it for the pid and tid
  // (and CPU 0, time 0) when records carry no sample_id.
  int32_t task_pid = start.pid, task_tid = start.tid;
  uint64_t fork_time = 0;
  switch (record.type()) {
    case PERF_RECORD_COMM:
      if (auto comm = perfdata::CommRecord::decode(record)) {
        task_pid = static_cast<int32_t>(comm->pid);
        task_tid = static_cast<int32_t>(comm->tid);
      }
      break;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      if (auto task = perfdata::ForkExitRecord::decode(record)) {
        task_pid = static_cast<int32_t>(task->pid);
        task_tid = static_cast<int32_t>(task->tid);
        if (record.type() == PERF_RECORD_FORK) fork_time = task->time;
      }
      break;
    case PERF_RECORD_MMAP:
      if (auto mmap = perfdata::MmapRecord::decode(record)) {
        task_pid = static_cast<int32_t>(mmap->pid);
        task_tid = static_cast<int32_t>(mmap->tid);
      }
      break;
    case PERF_RECORD_MMAP2:
      if (auto mmap = perfdata::Mmap2Record::decode(record)) {
        task_pid = static_cast<int32_t>(mmap->pid);
        task_tid = static_cast<int32_t>(mmap->tid);
      }
      break;
    case PERF_RECORD_NAMESPACES:
      if (auto namespaces = perfdata::NamespacesRecord::decode(record)) {
        task_pid = static_cast<int32_t>(namespaces->pid);
        task_tid = static_cast<int32_t>(namespaces->tid);
      }
      break;
    default:
      break;
  }
  bool names_task = record.type() != PERF_RECORD_SWITCH && record.type() != PERF_RECORD_SWITCH_CPU_WIDE &&
                    record.type() != PERF_RECORD_LOST;
  if (!event.attr.sample_id_all && names_task) {
    start.cpu = 0;
    start.time = fork_time;
    start.pid = task_pid;
    start.tid = task_tid;
  }
  if (options_.filter.skip_cpu(start.cpu)) return {};
  start.thread = &session_.machine().thread(task_pid, task_tid);
  uint64_t fields = options_.fields.of(event.attr.type).fields;
  append_start(start, event, fields);
  auto poke = perfdata::TextPokeRecord::decode(record);
  if (poke) {
    out_.buffer().append(std::string_view("PERF_RECORD_TEXT_POKE"));
    append_text_poke_text(*poke, symbols_.kernel_symbol_offset(session_.machine(), poke->addr),
                          out_.buffer());
  } else {
    append_record_text(record, out_.buffer());
  }
  out_.line_done();
  return {};
}

}  // namespace sonde::output
