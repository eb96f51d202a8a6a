#pragma once
// perf sched timehist's text: the header, one line per switch, wake-up and migration, and the
// run-time, wait-time or idle-time summary, in perf 6.1's layout. The task column starts 30
// wide and widens, as perf's does, once a longer name has been printed.
#include <fmt/format.h>

#include "analysis/sched/sched_timehist.hpp"
#include "base/output_stream.hpp"

namespace sonde::output {

// Text onto a format buffer, as the sched printers build their lines.
inline void append(fmt::memory_buffer& out, std::string_view text) {
  out.append(text.data(), text.data() + text.size());
}

struct TimehistTextOptions {
  bool cpu_visual = false, wakeups = false, next = false, state = false, idle_hist = false;
};

class TimehistText : public analysis::TimehistSink {
 public:
  TimehistText(TimehistTextOptions options, OutputStream& out) : o_(options), out_(out), block_(1u << 20) {}
  void header(uint32_t max_cpu) override;
  void row(const analysis::TimehistRow& row) override;
  void wakeup(uint64_t time, uint32_t cpu, uint32_t max_cpu, analysis::TimehistTask waker,
              analysis::TimehistTask wakee) override;
  void migration(uint64_t time, uint32_t cpu, uint32_t max_cpu, analysis::TimehistTask task,
                 analysis::TimehistTask migrated, int32_t orig_cpu, int32_t dest_cpu) override;
  void lost(uint64_t time, uint32_t cpu, uint64_t count) override;
  void summary(const analysis::TimehistSummary& summary) override;
  Result<void> finish();

 private:
  // perf's timehist_get_commstr into `name_`, widening the column as perf does.
  std::string_view task_name(const analysis::TimehistTask& task);
  void sched_time(uint64_t ns, int width);
  void flush_if_full();
  void task_row(const analysis::TimehistTaskSummary& task);
  void summary_tail(const analysis::TimehistSummary& summary);

  TimehistTextOptions o_;
  OutputStream& out_;
  fmt::memory_buffer buffer_;
  char* room();            // where the next line goes: 4 KB free at least
  void commit(char* end);  // the line ends there
  void flush_block();
  void append_cold(std::string_view text);  // text of any length, after the lines before it
  std::vector<char> block_;                 // the lines, written out 1 MB at a time
  size_t used_ = 0;
  char name_[128];
  int comm_width_ = 30;
  bool failed_ = false;
  Error error_;
};

// perf's timestamp__scnprintf_usec: seconds and microseconds, truncated.
void append_usec_time(fmt::memory_buffer& out, uint64_t ns);
// printf's "%*lu" (fill ' ') and "%0*lu" (fill '0') without a format string; "%d".
void append_uint(fmt::memory_buffer& out, uint64_t value, int width = 0, char fill = ' ');
void append_int(fmt::memory_buffer& out, int64_t value);

}  // namespace sonde::output
