#include "output/html/tracedat_tables.hpp"

#include <traceevent/event-parse.h>

#include <unordered_map>

#include "tracedat/record_merger.hpp"

namespace sonde::output {

Result<HtmlReportTables> trace_dat_tables(const tracedat::TraceDatReader& reader) {
  HtmlReportTables tables;
  tables.events.push_back({"records", false, 0});
  tep_handle* tep = reader.tep();
  tracedat::RecordMerger merger(reader);
  HtmlCpuLanes lanes;
  std::unordered_map<uint64_t, uint32_t> frames;  // by buffer << 32 | event id
  std::unordered_map<int, uint32_t> threads;      // by pid
  uint64_t last_time = 0;
  size_t buffer = 0;
  while (const tep_record* record = merger.next(buffer)) {
    tep_event* format = reader.record_format(*record);
    int id = format != nullptr ? format->id : tep_data_type(tep, const_cast<tep_record*>(record));
    // One root frame per event: the "stack" table is then just the events.
    auto [frame, fresh] = frames.try_emplace(static_cast<uint64_t>(buffer) << 32 | static_cast<uint32_t>(id),
                                             static_cast<uint32_t>(tables.frames.size()));
    if (fresh) {
      tables.frames.push_back({reader.event_name(buffer, id, format), "ftrace", "", 0, true});
      tables.stack_prefix.push_back(-1);
      tables.stack_frame.push_back(frame->second);
    }
    int pid = tep_data_pid(tep, const_cast<tep_record*>(record));
    auto [thread, new_thread] = threads.try_emplace(pid, static_cast<uint32_t>(tables.threads.size()));
    if (new_thread) tables.threads.push_back({pid, pid, "", 0});
    ++tables.threads[thread->second].samples;
    auto time = static_cast<uint64_t>(record->ts);
    if (format != nullptr && buffer == 0 && std::string_view(format->name) == "sched_switch")
      lanes.on_switch(static_cast<uint32_t>(record->cpu), time, format,
                      static_cast<const uint8_t*>(record->data), static_cast<size_t>(record->size));
    tables.times.push_back(time);
    tables.sample_threads.push_back(thread->second);
    tables.sample_stacks.push_back(frame->second);  // a root frame's stack id is its frame's
    tables.sample_events.push_back(0);
    tables.weights.push_back(1);
    last_time = std::max(last_time, time);
    ++tables.events[0].samples;
  }
  // Names as the file saved them (after the records: comms learned from them count too).
  for (HtmlReportThread& thread : tables.threads) thread.comm = tep_data_comm_from_pid(tep, thread.pid);
  tables.cpu_slices = lanes.finish(last_time);
  if (!merger.problems().empty()) return fail(merger.problems().front());
  return tables;
}

}  // namespace sonde::output
