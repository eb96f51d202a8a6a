#include "format/blktrace_event.hpp"

#include <fmt/format.h>
#include <traceevent/event-parse.h>

#include <string>

#include "base/bytes.hpp"

namespace sonde::tracedat {

namespace {

// The kernel writes struct blk_io_trace after the trace entry header; the first 16 bytes of
// that struct (magic, sequence, time) overlap the entry and are not shown.
constexpr const char* kBlkFields =
    "\n"
    "\tfield:u64 sector;\toffset:16;\tsize:8;\n"
    "\tfield:int bytes;\toffset:24;\tsize:4;\n"
    "\tfield:int action;\toffset:28;\tsize:4;\n"
    "\tfield:int pid;\toffset:32;\tsize:4;\n"
    "\tfield:int device;\toffset:36;\tsize:4;\n"
    "\tfield:int cpu;\toffset:40;\tsize:4;\n"
    "\tfield:short error;\toffset:44;\tsize:2;\n"
    "\tfield:short pdu_len;\toffset:46;\tsize:2;\n"
    "\tfield:void data;\toffset:48;\tsize:0;\n"
    "\n"
    "print fmt: \"%d\", REC->pid\n";

bool common_field_at(tep_event* event, const char* name, int offset, int size) {
  tep_format_field* field = tep_find_common_field(event, name);
  return field && field->offset == offset && field->size == size;
}

}  // namespace

void add_blktrace_event(tep_handle* tep) {
  // The blk tracer's type number followed power, then kmem_free, now user_stack.
  tep_event* neighbour = nullptr;
  for (const char* name : {"power", "kmem_free", "user_stack"})
    if ((neighbour = tep_find_event_by_name(tep, "ftrace", name))) break;
  if (!neighbour) return;
  if (!common_field_at(neighbour, "common_type", 0, 2) || !common_field_at(neighbour, "common_flags", 2, 1) ||
      !common_field_at(neighbour, "common_preempt_count", 3, 1) ||
      !common_field_at(neighbour, "common_pid", 4, 4))
    return;
  std::string format = fmt::format(
      "name: blktrace\nID: {}\nformat:\n"
      "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n"
      "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\n"
      "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\n"
      "\tfield:int common_pid;\toffset:4;\tsize:4;\n",
      neighbour->id + 1);
  if (tep_find_common_field(neighbour, "common_lock_depth")) {
    if (!common_field_at(neighbour, "common_lock_depth", 8, 4)) return;
    format += "\tfield:int common_lock_depth;\toffset:8;\tsize:4;\n";
  }
  format += kBlkFields;
  tep_parse_event(tep, format.data(), format.size(), "ftrace");
}

int blktrace_event_id(tep_handle* tep) {
  tep_event* event = tep_find_event_by_name(tep, "ftrace", "blktrace");
  return event ? event->id : -1;
}

std::optional<format::BlkTrace> blk_trace_from_record(const void* data, int size, unsigned long long ts,
                                                      int cpu) {
  if (size < static_cast<int>(format::kBlkTraceHeaderSize)) return std::nullopt;
  const auto* bytes = static_cast<const uint8_t*>(data);
  format::BlkTrace trace;
  trace.time = ts;
  trace.sector = load<uint64_t>(bytes + 16);
  trace.bytes = load<uint32_t>(bytes + 24);
  trace.action = load<uint32_t>(bytes + 28);
  trace.pid = load<uint32_t>(bytes + 32);
  trace.device = load<uint32_t>(bytes + 36);
  trace.cpu = static_cast<uint32_t>(cpu);
  trace.error = load<uint16_t>(bytes + 44);
  uint16_t pdu_len = load<uint16_t>(bytes + 46);
  // The ring buffer rounds records up to 4 bytes: the payload may be followed by padding.
  if (pdu_len > size - static_cast<int>(format::kBlkTraceHeaderSize)) return std::nullopt;
  trace.pdu.assign(reinterpret_cast<const char*>(bytes) + format::kBlkTraceHeaderSize, pdu_len);
  return trace;
}

}  // namespace sonde::tracedat
