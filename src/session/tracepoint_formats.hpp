#pragma once
// The tracepoint formats a perf.data file carries (its TRACING_DATA blob: header_page, the
// ftrace and event format files, kallsyms, printk formats, saved cmdlines), loaded into a
// libtraceevent handle, so tracepoint payloads print as perf script prints them (the event's
// print fmt, no plugins: perf 6.1 loads none when reading a file).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/bytes.hpp"
#include "base/error.hpp"

struct tep_handle;
struct tep_event;
struct trace_seq;

namespace sonde::session {

class TracepointFormats {
 public:
  // Parses perf's blob (versions 0.5 and 0.6). An event whose format does not parse is left
  // out (its samples print without payload), as perf does.
  static Result<TracepointFormats> parse(sonde::Bytes blob);

  TracepointFormats(TracepointFormats&&) noexcept;
  TracepointFormats& operator=(TracepointFormats&&) noexcept;
  ~TracepointFormats();

  // The event with tracefs id `id` (a tracepoint attr's config), or nullptr.
  tep_event* find(uint64_t id) const;
  // Every event format the blob holds, in id order (what perf script -g python writes handlers for).
  std::vector<tep_event*> events_by_id() const;
  // Appends a tracepoint sample's payload formatted by its event's print fmt (perf's
  // TEP_PRINT_INFO); the event is the one the payload's common_type names. `raw_fields`: each
  // field as "name=value" instead, without the print fmt (perf report's --raw-trace).
  void append_info(int cpu, sonde::Bytes raw, std::string& out, bool raw_fields = false);
  // "system:name" of an event, for event names of files without EVENT_DESC.
  static std::string qualified_name(const tep_event* event);

 private:
  TracepointFormats();
  struct Handle;
  std::unique_ptr<Handle> handle_;
};

}  // namespace sonde::session
