#pragma once
// The Chrome trace event format's document (JSON object form), as Perfetto UI, chrome://tracing
// and speedscope import it, written as events arrive: slices on thread tracks ("B"/"E" and "X"),
// tracepoints as instant events with their fields as args, and sched_switch as slices of who
// runs on per-CPU tracks. Shared by the perf.data converter (chrome_trace, which adds the
// samples' flame charts) and the trace.dat one (chrome_tracedat). Formatted text goes to the
// background writer in ~1 MB pieces.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/background_writer.hpp"
#include "base/error.hpp"

struct tep_event;

namespace sonde::output {

class ChromeEvents {
 public:
  explicit ChromeEvents(OutputStream& out);

  // A slice opening ('B') or closing ('E') on a thread's track; `name_json` is quoted JSON.
  void duration(char phase, std::string_view name_json, int64_t pid, int64_t tid, uint64_t time);
  // A tracepoint's payload `raw` (common fields first) as an instant event named `name`, its
  // fields (per `format`, which may be null) and the CPU, when known, as args.
  void tracepoint(std::string_view name, int64_t pid, int64_t tid, uint64_t time, int64_t cpu,
                  const tep_event* format, const uint8_t* raw, size_t size);
  // A sched_switch payload: ends the CPU's running slice and opens the next task's (the idle
  // task's is left empty).
  void sched_switch(uint32_t cpu, uint64_t time, const tep_event* format, const uint8_t* raw, size_t size);
  // Names a thread's track (and its process's, for the main thread) at the end.
  void name_thread(int64_t pid, int64_t tid, std::string_view comm);
  // Closes the CPUs' slices at `last_time`, names the tracks and ends the document.
  Result<void> finish(uint64_t last_time);

  uint64_t bytes() const { return bytes_put_ + text_.size(); }

 private:
  struct CpuTrack {
    bool open = false;
    uint64_t start = 0;
    std::string name;
  };
  struct ThreadName {
    int64_t pid, tid;
    std::string comm;
  };

  void begin_event();
  // An event's track and time: ,"pid":..,"tid":..,"ts":..
  void append_place(int64_t pid, int64_t tid, uint64_t time);
  void complete_event(std::string_view name_json, int64_t pid, int64_t tid, uint64_t start, uint64_t end);
  void metadata(std::string_view what, int64_t pid, int64_t tid, std::string_view name);
  void drain();

  BackgroundWriter out_;
  std::string text_;
  uint64_t bytes_put_ = 0;
  Result<void> status_;
  bool first_event_ = true;
  std::vector<CpuTrack> cpus_;
  std::vector<ThreadName> thread_names_;
};

}  // namespace sonde::output
