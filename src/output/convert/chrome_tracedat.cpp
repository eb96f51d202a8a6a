#include "output/convert/chrome_tracedat.hpp"

#include <traceevent/event-parse.h>

#include <set>
#include <string>
#include <unordered_map>

#include "output/convert/chrome_events.hpp"
#include "tracedat/record_merger.hpp"

namespace sonde::output {

Result<ChromeTraceDatSummary> write_chrome_trace(const tracedat::TraceDatReader& reader, OutputStream& out) {
  tep_handle* tep = reader.tep();
  ChromeEvents events(out);
  tracedat::RecordMerger merger(reader);
  // Event names by (buffer, id): "sched:sched_switch", "instance/sched:sched_switch".
  std::unordered_map<uint64_t, std::string> names;
  std::set<int> pids;
  ChromeTraceDatSummary summary;
  uint64_t last_time = 0;
  size_t buffer = 0;
  while (const tep_record* record = merger.next(buffer)) {
    tep_event* format = reader.record_format(*record);
    auto* mutable_record = const_cast<tep_record*>(record);  // libtraceevent reads only
    int id = format != nullptr ? format->id : tep_data_type(tep, mutable_record);
    auto [name, fresh] = names.try_emplace(static_cast<uint64_t>(buffer) << 32 | static_cast<uint32_t>(id));
    if (fresh) name->second = reader.event_name(buffer, id, format);
    int pid = tep_data_pid(tep, mutable_record);
    auto time = static_cast<uint64_t>(record->ts);
    const auto* raw = static_cast<const uint8_t*>(record->data);
    auto size = static_cast<size_t>(record->size);
    if (format != nullptr && std::string_view(format->name) == "sched_switch" && buffer == 0)
      events.sched_switch(static_cast<uint32_t>(record->cpu), time, format, raw, size);
    events.tracepoint(name->second, pid, pid, time, record->cpu, format, raw, size);
    pids.insert(pid);
    if (time > last_time) last_time = time;
    ++summary.events;
  }
  for (int pid : pids) events.name_thread(pid, pid, tep_data_comm_from_pid(tep, pid));
  if (auto finished = events.finish(last_time); !finished) return tl::unexpected(finished.error());
  if (!merger.problems().empty()) return fail(merger.problems().front());
  summary.bytes = events.bytes();
  return summary;
}

}  // namespace sonde::output
