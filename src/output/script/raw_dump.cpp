#include "output/script/raw_dump.hpp"

#include <bit>
#include <cctype>
#include <utility>

#include "base/strings.hpp"
#include "format/perf_format.hpp"
#include "format/perf_regs.hpp"
#include "output/script/script_records.hpp"
#include "perfdata/kernel_records.hpp"
#include "perfdata/perf_records.hpp"

namespace sonde::output {

namespace {

using Out = fmt::memory_buffer;

void put(Out& out, std::string_view text) { out.append(text); }

// perf's print_binary with its dump printer: 16 bytes a line, hex then the printable ones.
void append_hex_dump(Out& out, sonde::Bytes bytes) {
  fmt::format_to(fmt::appender(out), ".\n. ... raw event: size {} bytes\n", bytes.size());
  for (size_t line = 0; line < bytes.size(); line += 16) {
    size_t end = std::min(bytes.size(), line + 16);
    fmt::format_to(fmt::appender(out), ".  {:04x}: ", line);
    for (size_t i = line; i < end; ++i) fmt::format_to(fmt::appender(out), " {:02x}", bytes[i]);
    for (size_t i = end; i < line + 16; ++i) put(out, "   ");
    put(out, "  ");
    for (size_t i = line; i < end; ++i) {
      unsigned char c = bytes[i];
      out.push_back(c < 0x80 && std::isprint(c) ? static_cast<char>(c) : '.');
    }
    for (size_t i = end; i < line + 16; ++i) out.push_back(' ');
    out.push_back('\n');
  }
  out.push_back('\n');
}

void append_regs(Out& out, std::string_view kind, const perfdata::Regs& regs) {
  if (regs.abi == 0) return;  // the kernel dumped none (perf keeps no registers then)
  std::string_view abi = regs.abi == PERF_SAMPLE_REGS_ABI_32   ? "32-bit"
                         : regs.abi == PERF_SAMPLE_REGS_ABI_64 ? "64-bit"
                                                               : "unknown";
  fmt::format_to(fmt::appender(out), "... {} regs: mask {:#x} ABI {}\n", kind, regs.mask, abi);
  size_t index = 0;
  for (unsigned reg = 0; reg < 64; ++reg) {
    if (!(regs.mask & (uint64_t{1} << reg))) continue;
    uint64_t value = index < regs.values.size() ? regs.values[index] : 0;
    ++index;
    fmt::format_to(fmt::appender(out), ".... {:<5} 0x{:016x}\n", format::x86_register_name(reg), value);
  }
}

void append_read_values(Out& out, const perfdata::ReadValues& read) {
  put(out, "... sample_read:\n");
  if (read.read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
    fmt::format_to(fmt::appender(out), "...... time enabled {:016x}\n", read.time_enabled);
  if (read.read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
    fmt::format_to(fmt::appender(out), "...... time running {:016x}\n", read.time_running);
  auto append_value = [&](const perfdata::ReadValues::Value& v) {
    fmt::format_to(fmt::appender(out), "..... id {:016x}, value {:016x}", v.id, v.value);
    if (read.read_format & PERF_FORMAT_LOST) fmt::format_to(fmt::appender(out), ", lost {}", v.lost);
    out.push_back('\n');
  };
  if (read.read_format & PERF_FORMAT_GROUP) {
    fmt::format_to(fmt::appender(out), ".... group nr {}\n", read.nr);
    for (size_t i = 0; i < read.nr; ++i) append_value(read.value(i));
  } else {
    append_value(read.single);
  }
}

}  // namespace

std::string raw_dump_file_label(const std::string& path, bool is_pipe) { return is_pipe ? "pipe" : path; }

RawDumpPrinter::RawDumpPrinter(session::Session& session, ScriptSymbols& symbols, std::string file_label,
                               const analysis::ScriptFilter& filter, bool script_shows_lost,
                               ScriptOutput& out, session::SessionVisitor& next)
    : session_(session),
      symbols_(symbols),
      file_label_(std::move(file_label)),
      filter_(filter),
      script_shows_lost_(script_shows_lost),
      out_(out),
      next_(next) {}

void RawDumpPrinter::append_head(const perfdata::RecordView& record, const Stamp& stamp) {
  Out& out = out_.buffer();
  // The events perf knew when it read this record: a pipe's HEADER_ATTR is dumped before perf
  // adds it, while our reader has taken it in already.
  const auto& events = session_.reader().attrs().events();
  size_t known = events.size();
  if (record.type() == perfdata::PERF_RECORD_HEADER_ATTR && known > 0) --known;
  if (known != combined_count_) {  // the events change only as a pipe's headers arrive
    combined_ = 0;
    for (size_t i = 0; i < known; ++i) combined_ |= events[i].attr.sample_type;
    combined_count_ = known;
  }
  uint64_t combined = combined_;
  bool sample_id_all = known > 0 && events.front().attr.sample_id_all;

  // perf counts a pipe's offsets from the end of its header.
  uint64_t offset =
      session_.reader().is_pipe() ? record.offset - sizeof(perfdata::PipeHeader) : record.offset;
  out.push_back('\n');
  append_c_alt_hex(out, offset);
  fmt::format_to(fmt::appender(out), "@{} [{:#x}]: event: {}\n", file_label_, record.header.size,
                 record.type());
  append_hex_dump(out, record.bytes.first(std::min<size_t>(record.bytes.size(), record.header.size)));
  if (!stamp.known || (record.type() != PERF_RECORD_SAMPLE && !sample_id_all)) {
    put(out, "-1 -1 ");
  } else {
    if (combined & PERF_SAMPLE_CPU) fmt::format_to(fmt::appender(out), "{} ", stamp.cpu);
    if (combined & PERF_SAMPLE_TIME) fmt::format_to(fmt::appender(out), "{} ", stamp.time);
  }
  append_c_alt_hex(out, offset);
  fmt::format_to(fmt::appender(out), " [{:#x}]: PERF_RECORD_{}", record.header.size,
                 perf_record_name(record.type()));
}

void RawDumpPrinter::on_sample(const session::SampleEvent& event) {
  const perfdata::Sample& sample = event.sample;
  Stamp stamp{true, sample.has(PERF_SAMPLE_CPU) ? sample.cpu : UINT32_MAX,
              sample.has(PERF_SAMPLE_TIME) ? sample.time : UINT64_MAX};
  append_head(event.record, stamp);
  append_sample(event);
  // perf script looks the sample up (and says so) unless --time or -C drop it first.
  bool dropped = (sample.has(PERF_SAMPLE_TIME) && filter_.skip_time(sample.time)) ||
                 (sample.has(PERF_SAMPLE_CPU) && filter_.skip_cpu(sample.cpu));
  if (!dropped) {
    Out& out = out_.buffer();
    fmt::format_to(fmt::appender(out), " ... thread: {}:{}\n", event.thread.comm, event.thread.tid);
    session::Location where = session_.machine().locate(event.thread, event.cpumode, sample.ip);
    std::string_view dso = where.dso != nullptr ? std::string_view(where.dso->long_name)
                           : event.cpumode == PERF_RECORD_MISC_HYPERVISOR ? std::string_view("[hypervisor]")
                                                                          : std::string_view("<not found>");
    fmt::format_to(fmt::appender(out), " ...... dso: {}\n", dso);
  }
  next_.on_sample(event);
  out_.line_done();
}

void RawDumpPrinter::append_sample(const session::SampleEvent& event) {
  const perfdata::Sample& s = event.sample;
  const perf_event_attr& attr = event.event.attr;
  Out& out = out_.buffer();
  auto it = fmt::appender(out);
  int32_t pid = s.has(PERF_SAMPLE_TID) ? static_cast<int32_t>(s.pid) : -1;
  int32_t tid = s.has(PERF_SAMPLE_TID) ? static_cast<int32_t>(s.tid) : -1;
  uint64_t period = s.has(PERF_SAMPLE_PERIOD) ? s.period : attr.sample_period;
  fmt::format_to(it, "(IP, {:#x}): {}/{}: ", event.record.misc(), pid, tid);
  append_c_alt_hex(out, s.ip);
  fmt::format_to(fmt::appender(out), " period: {} addr: ", period);
  append_c_alt_hex(out, s.addr);
  out.push_back('\n');
  if (s.has(PERF_SAMPLE_CALLCHAIN)) {
    fmt::format_to(fmt::appender(out), "... FP chain: nr:{}\n", s.callchain.size());
    for (size_t i = 0; i < s.callchain.size(); ++i)
      fmt::format_to(fmt::appender(out), "..... {:2}: {:016x}\n", i, s.callchain[i]);
  }
  if (s.has(PERF_SAMPLE_REGS_USER)) append_regs(out, "user", s.regs_user);
  if (s.has(PERF_SAMPLE_REGS_INTR)) append_regs(out, "intr", s.regs_intr);
  if (s.has(PERF_SAMPLE_STACK_USER))
    fmt::format_to(fmt::appender(out), "... ustack: size {}, offset {:#x}\n",
                   s.stack_user.empty() ? 0 : s.stack_user_dyn_size, s.stack_user_offset);
  if (s.has(PERF_SAMPLE_WEIGHT) || s.has(PERF_SAMPLE_WEIGHT_STRUCT)) {
    if (s.has(PERF_SAMPLE_WEIGHT)) {
      fmt::format_to(fmt::appender(out), "... weight: {}", s.weight);
    } else {
      // The struct form: a 32-bit weight, then instruction latency and pipeline stage cycles.
      fmt::format_to(fmt::appender(out), "... weight: {},{:#x},{:#x}", s.weight & 0xffffffff,
                     (s.weight >> 32) & 0xffff, s.weight >> 48);
    }
    out.push_back('\n');
  }
  if (s.has(PERF_SAMPLE_DATA_SRC)) fmt::format_to(fmt::appender(out), " . data_src: {:#x}\n", s.data_src);
  if (s.has(PERF_SAMPLE_PHYS_ADDR)) fmt::format_to(fmt::appender(out), " .. phys_addr: {:#x}\n", s.phys_addr);
  if (s.has(PERF_SAMPLE_DATA_PAGE_SIZE))
    fmt::format_to(fmt::appender(out), " .. data page size: {}\n", page_size_name(s.data_page_size));
  if (s.has(PERF_SAMPLE_CODE_PAGE_SIZE))
    fmt::format_to(fmt::appender(out), " .. code page size: {}\n", page_size_name(s.code_page_size));
  if (s.has(PERF_SAMPLE_TRANSACTION))
    fmt::format_to(fmt::appender(out), "... transaction: {:x}\n", s.transaction);
  if (s.has(PERF_SAMPLE_READ)) append_read_values(out, s.read);
}

Result<void> RawDumpPrinter::on_record(const perfdata::RecordView& record, const perfdata::EventAttr* attr,
                                       const perfdata::SampleId& id) {
  if (record.type() >= perfdata::PERF_RECORD_USER_TYPE_START) {
    // perf opens COMPRESSED records without dumping them; what is inside comes on its own.
    if (record.type() != perfdata::PERF_RECORD_COMPRESSED) {
      append_head(record, Stamp{true, 0, 0});
      append_user_record(record);
    }
  } else {
    // A record whose sample_id names no event is read by the first event, as perf reads it.
    const auto& events = session_.reader().attrs().events();
    const perfdata::EventAttr* reading = attr != nullptr ? attr : events.empty() ? nullptr : &events.front();
    perfdata::SampleId trailer = id;
    if (attr == nullptr && reading != nullptr && reading->attr.sample_id_all) {
      if (auto decoded = perfdata::decode_sample_id(record, reading->attr)) trailer = *decoded;
    }
    Stamp stamp{reading != nullptr && trailer.present, UINT32_MAX, UINT64_MAX};
    if (stamp.known) {
      if (reading->attr.sample_type & PERF_SAMPLE_CPU) stamp.cpu = trailer.cpu;
      if (reading->attr.sample_type & PERF_SAMPLE_TIME) stamp.time = trailer.time;
    }
    append_head(record, stamp);
    // perf script prints an EXIT's --show-task-events line before it processes (and dumps) it.
    if (record.type() == PERF_RECORD_EXIT) {
      if (auto printed = next_.on_record(record, attr, id); !printed) return printed;
      append_kernel_record(record, trailer, reading);
      out_.line_done();
      return {};
    }
    if (!(record.type() == PERF_RECORD_LOST && script_shows_lost_))
      append_kernel_record(record, trailer, reading);
  }
  if (auto printed = next_.on_record(record, attr, id); !printed) return printed;
  out_.line_done();
  return {};
}

void RawDumpPrinter::append_user_record(const perfdata::RecordView& record) {
  Out& out = out_.buffer();
  auto it = fmt::appender(out);
  switch (record.type()) {
    case perfdata::PERF_RECORD_FINISHED_ROUND:
      put(out, file_order_ ? ": unhandled!\n" : "\n");
      return;
    case perfdata::PERF_RECORD_ID_INDEX:
      if (auto index = perfdata::IdIndexRecord::decode(record)) {
        fmt::format_to(it, " nr: {}\n", index->entries.size());
        for (const auto& e : index->entries) {
          fmt::format_to(it, " ... id: {}  idx: {}  cpu: {}  tid: {}", e.id, e.idx, e.cpu, e.tid);
          if (e.has_machine) fmt::format_to(it, "  machine_pid: {}  vcpu: {}", e.machine_pid, e.vcpu);
          out.push_back('\n');
        }
        return;
      }
      break;
    case perfdata::PERF_RECORD_THREAD_MAP:
      if (auto map = perfdata::ThreadMapRecord::decode(record)) {
        fmt::format_to(it, " nr: {} thread{}: ", map->pids.size(), map->pids.size() > 1 ? "s" : "");
        for (size_t i = 0; i < map->pids.size(); ++i) fmt::format_to(it, "{}{}", i ? ", " : "", map->pids[i]);
        out.push_back('\n');
        if (report_handlers_) put(out, ": unhandled!\n");
        return;
      }
      break;
    case perfdata::PERF_RECORD_CPU_MAP:
      if (auto map = perfdata::CpuMapRecord::decode(record)) {
        fmt::format_to(it, ": {}\n", perfdata::cpu_list_text(map->cpus));
        if (report_handlers_) put(out, ": unhandled!\n");
        return;
      }
      break;
    case perfdata::PERF_RECORD_EVENT_UPDATE:
      if (auto update = perfdata::EventUpdateRecord::decode(record)) {
        fmt::format_to(it, "\n... id:    {}\n", update->id);
        switch (update->type) {
          case perfdata::EventUpdateRecord::kScale:
            fmt::format_to(it, "... scale: {:f}\n", update->scale);
            break;
          case perfdata::EventUpdateRecord::kUnit:
            fmt::format_to(it, "... unit:  {}\n", update->text);
            break;
          case perfdata::EventUpdateRecord::kName:
            fmt::format_to(it, "... name:  {}\n", update->text);
            break;
          case perfdata::EventUpdateRecord::kCpus:
            fmt::format_to(it, "... {}\n", perfdata::cpu_list_text(update->cpus));
            break;
          default:
            put(out, "... unknown type\n");
            break;
        }
        return;
      }
      break;
    case perfdata::PERF_RECORD_TIME_CONV: {
      sonde::Bytes body = record.payload();
      if (body.size() >= 24) {
        fmt::format_to(it, "\n... Time Shift      {}\n", sonde::load<uint64_t>(body.data()));
        fmt::format_to(it, "... Time Muliplier  {}\n",
                       sonde::load<uint64_t>(body.data() + 8));  // sic, perf's text
        fmt::format_to(it, "... Time Zero       {}\n", sonde::load<uint64_t>(body.data() + 16));
        if (body.size() >= 48) {
          fmt::format_to(it, "... Time Cycles     {}\n", sonde::load<uint64_t>(body.data() + 24));
          put(out, "... Time Mask       ");
          append_c_alt_hex(out, sonde::load<uint64_t>(body.data() + 32));
          fmt::format_to(fmt::appender(out), "\n... Cap Time Zero   {}\n", static_cast<int32_t>(body[40]));
          fmt::format_to(fmt::appender(out), "... Cap Time Short  {}\n", static_cast<int32_t>(body[41]));
        }
      }
      put(out, ": unhandled!\n");
      return;
    }
    case perfdata::PERF_RECORD_FINISHED_INIT:
    case perfdata::PERF_RECORD_AUXTRACE_ERROR:
      put(out, ": unhandled!\n");
      return;
    default:
      // HEADER_ATTR, TRACING_DATA, BUILD_ID, FEATURE: perf script takes them in silently.
      return;
  }
  out.push_back('\n');
}

void RawDumpPrinter::append_kernel_record(const perfdata::RecordView& record, const perfdata::SampleId& id,
                                          const perfdata::EventAttr* reading) {
  Out& out = out_.buffer();
  auto it = fmt::appender(out);
  switch (record.type()) {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
    case PERF_RECORD_COMM:
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
    case PERF_RECORD_KSYMBOL:
    case PERF_RECORD_BPF_EVENT: {
      // The same text as --show-*-events, after the name both print.
      fmt::memory_buffer text;
      append_record_text(record, text);
      std::string_view line(text.data(), text.size());
      line.remove_prefix(std::min(
          line.size(), std::string_view("PERF_RECORD_").size() + perf_record_name(record.type()).size()));
      out.append(line);
      return;
    }
    case PERF_RECORD_TEXT_POKE:
      if (auto poke = perfdata::TextPokeRecord::decode(record)) {
        append_text_poke_text(*poke, symbols_.kernel_symbol_offset(session_.machine(), poke->addr), out);
        return;
      }
      break;
    case PERF_RECORD_LOST:
      if (auto lost = perfdata::LostRecord::decode(record)) {
        fmt::format_to(it, ": id:{}: lost:{}\n", lost->id, lost->lost);
        return;
      }
      break;
    case PERF_RECORD_LOST_SAMPLES:
      if (auto lost = perfdata::LostSamplesRecord::decode(record)) {
        fmt::format_to(it, ": id:{}: lost samples :{}\n", id.id, lost->lost);
        return;
      }
      break;
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE:
      return;  // perf script's handler prints nothing for them
    case PERF_RECORD_READ: {
      // perf's dump_read: the value, then the counter's times, id and lost read at their places in
      // a read_format with every bit, each printed when the event's read_format has it.
      Bytes body = record.payload();
      if (body.size() < 16) break;
      uint64_t read_format = reading != nullptr ? reading->attr.read_format : 0;
      fmt::format_to(it, ": {} {} {} {}\n", load<int32_t>(body.data()), load<int32_t>(body.data() + 4),
                     reading != nullptr ? session::event_name(*reading) : std::string("unknown"),
                     load<uint64_t>(body.data() + 8));
      constexpr std::pair<uint64_t, const char*> kFields[] = {
          {PERF_FORMAT_TOTAL_TIME_ENABLED, "time enabled"},
          {PERF_FORMAT_TOTAL_TIME_RUNNING, "time running"},
          {PERF_FORMAT_ID, "id          "},
          {PERF_FORMAT_LOST, "lost        "}};
      for (size_t i = 0; i < std::size(kFields); ++i) {
        size_t at = 16 + i * 8;
        if ((read_format & kFields[i].first) && at + 8 <= body.size())
          fmt::format_to(it, "... {} : {}\n", kFields[i].second, load<uint64_t>(body.data() + at));
      }
      if (!report_handlers_) put(out, ": unhandled!\n");
      return;
    }
    default:
      put(out, ": unhandled!\n");
      return;
  }
  out.push_back('\n');
}

}  // namespace sonde::output
