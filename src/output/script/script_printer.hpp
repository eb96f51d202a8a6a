#pragma once
// perf script's text, line for line: each sample as "comm tid [cpu] time: period event: ..."
// with its callchain indented beneath or its symbol on the line, tracepoint payloads through
// libtraceevent, and side-band records when asked (--show-task-events, --show-mmap-events,
// --show-switch-events, --show-lost-events). Output goes out in ~1 MB writes.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/report/hist_index.hpp"
#include "analysis/script/event_switch.hpp"
#include "analysis/script/script_filter.hpp"
#include "output/script/script_dlfilter.hpp"
#include "output/script/script_fields.hpp"
#include "output/script/script_symbols.hpp"
#include "session/session.hpp"
#include "session/tracepoint_formats.hpp"

namespace sonde::output {

// perf's sample_addr_correlates_sym: the address of page-fault samples is a code or data
// address worth a symbol.
bool addr_correlates_sym(const perf_event_attr& attr);
// Where a sample's addr falls (in the other privilege's maps when its own have none), and its ip.
session::Location locate_sample_addr(const session::Machine& machine, const session::SampleEvent& sample);
session::Location locate_sample_ip(const session::Machine& machine, const session::SampleEvent& sample);

// script -s: the samples the printer's filters keep go to a script instead of being printed.
class ScriptSampleSink {
 public:
  virtual ~ScriptSampleSink() = default;
  // `tracepoint`: the sample's tracepoint format, nullptr for other events. false: the script
  // ended the run, and wants no more samples.
  virtual bool on_sample(const session::SampleEvent& sample, std::string_view event_name,
                         const tep_event* tracepoint) = 0;
};

// perf script's times: as recorded, --reltime (since the first event with a time), --deltatime
// (since the event printed before).
enum class ScriptTimes { absolute, since_first, since_previous };

struct ScriptOptions {
  ScriptFields fields = default_script_fields();
  bool use_callchain = true;  // -G turns callchains off
  bool nanoseconds = false;   // --ns
  ScriptTimes times = ScriptTimes::absolute;
  unsigned max_stack = 127;   // --max-stack (perf's default: kernel.perf_event_max_stack)
  bool inline_frames = true;  // --no-inline: DWARF-unwound frames without their inline frames
  bool show_task_events = false;
  bool show_mmap_events = false;
  bool show_switch_events = false;
  bool show_lost_events = false;
  bool show_namespace_events = false;  // NAMESPACES records (record --namespaces)
  bool show_cgroup_events = false;     // CGROUP records (record --all-cgroups)
  bool show_bpf_events = false;        // KSYMBOL and BPF_EVENT records
  bool show_text_poke_events = false;  // TEXT_POKE and KSYMBOL records
  bool show_round_events = false;      // FINISHED_ROUND records (the session then keeps file order)
  // --switch-on/--switch-off: samples only between a sample of the one and of the other (names as
  // the file's events are named); --show-on-off-events keeps those switching samples.
  std::string switch_on, switch_off;
  bool show_on_off_events = false;
  // --per-event-dump: each event's sample lines go to "<this>.<event>.dump" instead of stdout.
  std::string per_event_dump_prefix;
  analysis::ScriptFilter filter;
  analysis::Dlfilter* dlfilter = nullptr;   // --dlfilter: started, asked of each sample
  ScriptSampleSink* sample_sink = nullptr;  // -s: the samples go to the script's handlers
};

// Writes text in large blocks; a write error (a closed pipe) ends the output quietly.
class ScriptOutput {
 public:
  explicit ScriptOutput(std::FILE* file) : file_(file) {}
  ~ScriptOutput() { flush(); }
  ScriptOutput(const ScriptOutput&) = delete;
  ScriptOutput& operator=(const ScriptOutput&) = delete;

  fmt::memory_buffer& buffer() { return buffer_; }
  void line_done() {
    if (buffer_.size() >= kFlushSize) flush();
  }
  void flush();
  // The lines so far into the FILE's own buffer, without a write: what else prints to the same
  // FILE (a dlfilter's printf) then follows them.
  void hand_over();
  bool failed() const { return failed_; }

 private:
  static constexpr size_t kFlushSize = 1 << 20;
  std::FILE* file_;
  fmt::memory_buffer buffer_;
  bool failed_ = false;
};

class ScriptPrinter : public session::SessionVisitor {
 public:
  ScriptPrinter(ScriptOptions options, session::Session& session, ScriptSymbols& symbols, ScriptOutput& out);

  // Fits the fields to the file's events and loads its tracepoint formats. Call it before
  // process() for a file; a pipe delivers its events and formats as records, so the printer
  // prepares again as they arrive (on_record), and a failure there stops the replay.
  Result<void> prepare();

  void on_sample(const session::SampleEvent& sample) override;
  // What stopped the lines early (a dlfilter's error), if anything.
  const std::optional<Error>& failure() const { return failure_; }
  Result<void> on_record(const perfdata::RecordView& record, const perfdata::EventAttr* attr,
                         const perfdata::SampleId& id) override;

 private:
  struct LineStart {
    const session::Thread* thread;
    int32_t pid, tid;
    uint32_t cpu;
    uint64_t time;
  };
  // --dsos and -S: whether the sample's place is left out.
  bool skip_place(const session::SampleEvent& sample);
  // --dlfilter: whether its filter_event_early (`early`) or filter_event drops the sample.
  bool dlfilter_drops(const session::SampleEvent& sample, bool early);
  void append_start(const LineStart& start, const perfdata::EventAttr& event, uint64_t fields);
  void append_frames(const session::SampleEvent& sample, uint64_t fields);
  void append_frame(const session::Location& loc, uint64_t fields, bool unwound);
  void append_sample_ip(const session::SampleEvent& sample, uint64_t fields);
  void append_addr(const session::SampleEvent& sample, uint64_t fields);
  void append_symbol(const session::Location& loc, uint64_t fields, const ResolvedSymbol** resolved);
  void append_srcline(const session::Location& loc);
  bool shows_record(uint32_t type) const;
  // prepare() has seen the events and tracing data there are now.
  bool prepared() const;

  ScriptOptions options_;
  session::Session& session_;
  ScriptSymbols& symbols_;
  std::optional<session::TracepointFormats> formats_;
  size_t tracing_data_size_ = 0;  // the blob formats_ was parsed from
  size_t prepared_events_ = 0;
  ScriptOutput& out_;
  const std::vector<perfdata::EventAttr>& events_;
  std::vector<std::string> event_names_;
  analysis::EventSwitch event_switch_;
  std::optional<ScriptDlfilterHost> dlfilter_host_;
  std::optional<Error> failure_;
  bool sink_stopped_ = false;  // the script ended the run
  struct EventDump {
    std::string path;
    std::FILE* file = nullptr;
    std::unique_ptr<ScriptOutput> out;
    uint64_t samples = 0, bytes = 0;
  };
  std::vector<EventDump> event_dumps_;
  Result<void> open_event_dumps();
  void move_line_to_event_dump(size_t event_index, size_t line_start);

 public:
  ~ScriptPrinter() override;
  // --per-event-dump: "Wrote N MB PATH (M samples)" for each file, once the replay is done.
  std::vector<std::string> event_dump_summary();
  size_t name_width_ = 0;
  std::string trace_text_;  // reused for tracepoint payloads
  // --reltime's and --deltatime's bases, kept as perf keeps them (0: not seen yet).
  uint64_t first_time_ = 0, previous_time_ = 0;
  // Callchain lines already formatted, by (DSO, shown address, DSO address, fields): their
  // place in frame_line_text_. A DSO's symbols do not change during a replay.
  analysis::KeyIndex<4> frame_line_ids_;
  std::vector<std::pair<size_t, size_t>> frame_lines_;
  std::string frame_line_text_;
};

}  // namespace sonde::output
