#include "output/sched/timehist_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace sonde::output {

namespace {

constexpr std::string_view kDashes =
    "----------------------------------------------------------------------------------------------------"
    "----------------------------------------------------------------------------------------------------";

void spaces(fmt::memory_buffer& out, int count) {
  for (int i = 0; i < count; ++i) out.push_back(' ');
}

// printf's "%-*s".
void left(fmt::memory_buffer& out, std::string_view text, int width) {
  append(out, text);
  spaces(out, width - static_cast<int>(text.size()));
}

// perf's task_state_char: the first set bit of the state picks a letter; the idle task is 'I'.
char task_state_char(int32_t tid, int64_t state) {
  static constexpr std::string_view kStates = "RSDTtZXxKWP";
  if (tid == 0) return 'I';
  auto value = static_cast<int32_t>(state);
  unsigned bit = value != 0 ? static_cast<unsigned>(__builtin_ffs(value)) : 0;
  return bit < kStates.size() ? kStates[bit] : '?';
}

// Raw writes into a line's reserved room (TimehistText::room keeps 4 KB free, more than a line).
struct Writer {
  char* p;
  void put(std::string_view text) {
    std::memcpy(p, text.data(), text.size());
    p += text.size();
  }
  void ch(char c) { *p++ = c; }
  void spaces(int count) {
    if (count <= 0) return;
    std::memset(p, ' ', static_cast<size_t>(count));
    p += count;
  }
  void uint(uint64_t value, int width = 0, char fill = ' ') {
    char digits[24];
    char* end = digits + sizeof digits;
    char* at = end;
    do {
      *--at = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    for (int pad = width - static_cast<int>(end - at); pad > 0; --pad) *p++ = fill;
    size_t n = static_cast<size_t>(end - at);
    std::memcpy(p, at, n);
    p += n;
  }
  void sint(int64_t value) {
    if (value < 0) {
      *p++ = '-';
      uint(static_cast<uint64_t>(-(value + 1)) + 1);
    } else {
      uint(static_cast<uint64_t>(value));
    }
  }
  // perf's timestamp__scnprintf_usec: seconds and microseconds, truncated.
  void usec_time(uint64_t ns) {
    uint(ns / 1000000000);
    ch('.');
    uint((ns % 1000000000) / 1000, 6, '0');
  }
  // "%15s [%04d] " of perf's usec timestamp and the CPU.
  void time_and_cpu(uint64_t ns, uint32_t cpu) {
    char stamp[40];
    Writer w{stamp};
    w.usec_time(ns);
    spaces(15 - static_cast<int>(w.p - stamp));
    put(std::string_view(stamp, static_cast<size_t>(w.p - stamp)));
    put(" [");
    uint(cpu, 4, '0');
    put("] ");
  }
  // perf's print_sched_time: "%*lu.%03lu ".
  void sched_time(uint64_t ns, int width) {
    uint(ns / 1000000, width);
    ch('.');
    uint((ns % 1000000) / 1000, 3, '0');
    ch(' ');
  }
};

}  // namespace

void append_uint(fmt::memory_buffer& out, uint64_t value, int width, char fill) {
  char text[48];
  Writer w{text};
  w.uint(value, width, fill);
  out.append(text, w.p);
}

void append_int(fmt::memory_buffer& out, int64_t value) {
  char text[48];
  Writer w{text};
  w.sint(value);
  out.append(text, w.p);
}

void append_usec_time(fmt::memory_buffer& out, uint64_t ns) {
  char text[48];
  Writer w{text};
  w.usec_time(ns);
  out.append(text, w.p);
}

void TimehistText::append_cold(std::string_view text) {
  if (block_.size() - used_ < text.size() + 4096) flush_block();
  if (block_.size() - used_ < text.size() + 4096) {
    if (!failed_) {
      auto written = out_.write(text.data(), text.size());
      if (!written) {
        failed_ = true;
        error_ = written.error();
      }
    }
    return;
  }
  std::memcpy(block_.data() + used_, text.data(), text.size());
  used_ += text.size();
}

char* TimehistText::room() {
  if (block_.size() - used_ < 4096) flush_block();
  return block_.data() + used_;
}

void TimehistText::commit(char* end) { used_ = static_cast<size_t>(end - block_.data()); }

void TimehistText::flush_block() {
  if (used_ > 0 && !failed_) {
    auto written = out_.write(block_.data(), used_);
    if (!written) {
      failed_ = true;
      error_ = written.error();
    }
  }
  used_ = 0;
}

std::string_view TimehistText::task_name(const analysis::TimehistTask& task) {
  Writer w{name_};
  w.put(task.comm.substr(0, 64));
  if (task.pid != 0) {
    w.ch('[');
    w.sint(task.tid);
    if (task.tid != task.pid) {
      w.ch('/');
      w.sint(task.pid);
    }
    w.ch(']');
  }
  // perf formats into 32 bytes: at most 31 characters.
  size_t size = std::min<size_t>(static_cast<size_t>(w.p - name_), 31);
  comm_width_ = std::max(comm_width_, static_cast<int>(size));
  return std::string_view(name_, size);
}

void TimehistText::sched_time(uint64_t ns, int width) {
  char text[48];
  Writer w{text};
  w.sched_time(ns, width);
  buffer_.append(text, w.p);
}

// The cold parts (header, summary) are formatted into buffer_ and moved into the block.
void TimehistText::flush_if_full() {
  if (buffer_.size() == 0) return;
  if (block_.size() - used_ < buffer_.size() + 4096) flush_block();
  if (block_.size() - used_ < buffer_.size()) {
    if (!failed_) {
      auto written = out_.write(buffer_.data(), buffer_.size());
      if (!written) {
        failed_ = true;
        error_ = written.error();
      }
    }
  } else {
    std::memcpy(block_.data() + used_, buffer_.data(), buffer_.size());
    used_ += buffer_.size();
  }
  buffer_.clear();
}

Result<void> TimehistText::finish() {
  flush_if_full();
  flush_block();
  if (failed_) return tl::unexpected(error_);
  return out_.flush();
}

void TimehistText::header(uint32_t max_cpu) {
  uint32_t ncpus = max_cpu + 1;
  auto out = std::back_inserter(buffer_);
  fmt::format_to(out, "{:>15} {:>6} ", "time", "cpu");
  if (o_.cpu_visual) {
    buffer_.push_back(' ');
    for (uint32_t i = 0, j = 0; i < ncpus; ++i) {
      fmt::format_to(out, "{:x}", j++);
      if (j > 15) j = 0;
    }
    buffer_.push_back(' ');
  }
  buffer_.push_back(' ');
  left(buffer_, "task name", comm_width_);
  fmt::format_to(out, "  {:>9}  {:>9}  {:>9}", "wait time", "sch delay", "run time");
  if (o_.state) append(buffer_, "  state");
  buffer_.push_back('\n');

  fmt::format_to(out, "{:>15} {:<6} ", "", "");
  if (o_.cpu_visual) {
    buffer_.push_back(' ');
    spaces(buffer_, static_cast<int>(ncpus));
    buffer_.push_back(' ');
  }
  buffer_.push_back(' ');
  left(buffer_, "[tid/pid]", comm_width_);
  fmt::format_to(out, "  {:>9}  {:>9}  {:>9}", "(msec)", "(msec)", "(msec)");
  if (o_.state) append(buffer_, "       ");
  buffer_.push_back('\n');

  fmt::format_to(out, "{} {} ", kDashes.substr(0, 15), kDashes.substr(0, 6));
  if (o_.cpu_visual) fmt::format_to(out, " {} ", kDashes.substr(0, ncpus));
  fmt::format_to(out, " {}  {}  {}  {}", kDashes.substr(0, static_cast<size_t>(comm_width_)),
                 kDashes.substr(0, 9), kDashes.substr(0, 9), kDashes.substr(0, 9));
  if (o_.state) fmt::format_to(out, "  {}", kDashes.substr(0, 5));
  buffer_.push_back('\n');
  flush_if_full();
}

void TimehistText::row(const analysis::TimehistRow& row) {
  std::string_view name = task_name(row.task);
  Writer w{room()};
  w.time_and_cpu(row.time, row.cpu);
  if (o_.cpu_visual) {
    w.ch(' ');
    for (uint32_t i = 0; i <= row.max_cpu; ++i) w.ch(i == row.cpu ? (row.idle ? 'i' : 's') : ' ');
    w.ch(' ');
  }
  w.ch(' ');
  w.put(name);
  w.spaces(comm_width_ - static_cast<int>(name.size()));
  w.ch(' ');
  w.sched_time(row.wait, 6);
  w.sched_time(row.delay, 6);
  w.sched_time(row.run, 6);
  if (o_.state) {
    w.put("     ");
    w.ch(task_state_char(row.task.tid, row.state));
    w.ch(' ');
  }
  if (o_.next) {
    // snprintf into perf's 30 bytes: at most 29 characters.
    char next[64];
    Writer n{next};
    n.put("next: ");
    n.put(row.next_comm.substr(0, 32));
    n.ch('[');
    n.sint(row.next_pid);
    n.ch(']');
    size_t size = std::min<size_t>(static_cast<size_t>(n.p - next), 29);
    w.ch(' ');
    w.put(std::string_view(next, size));
    w.spaces(comm_width_ - static_cast<int>(size));
  }
  if (o_.wakeups && !o_.next) w.spaces(2 + comm_width_);
  if (row.show_callchain && !row.idle) {
    w.put("  ");
    commit(w.p);
    // A callchain can be longer than a line's room: appended on its own.
    append_cold(row.callchain);
    w.p = room();
  }
  w.ch('\n');
  commit(w.p);
}

void TimehistText::wakeup(uint64_t time, uint32_t cpu, uint32_t max_cpu, analysis::TimehistTask waker,
                          analysis::TimehistTask wakee) {
  std::string_view name = task_name(waker);
  Writer w{room()};
  w.time_and_cpu(time, cpu);
  if (o_.cpu_visual) w.spaces(static_cast<int>(max_cpu) + 3);
  w.ch(' ');
  w.put(name);
  w.spaces(comm_width_ - static_cast<int>(name.size()));
  w.spaces(35);
  w.put("awakened: ");
  w.put(task_name(wakee));
  w.ch('\n');
  commit(w.p);
}

void TimehistText::migration(uint64_t time, uint32_t cpu, uint32_t max_cpu, analysis::TimehistTask task,
                             analysis::TimehistTask migrated, int32_t orig_cpu, int32_t dest_cpu) {
  std::string_view name = task_name(task);
  Writer w{room()};
  w.time_and_cpu(time, cpu);
  if (o_.cpu_visual) {
    w.put("  ");
    for (uint32_t i = 0; i <= max_cpu; ++i) w.ch(i == cpu ? 'm' : ' ');
    w.put("  ");
  }
  w.ch(' ');
  w.put(name);
  w.spaces(comm_width_ - static_cast<int>(name.size()));
  w.spaces(35);
  w.put("migrated: ");
  w.put(task_name(migrated));
  w.put(" cpu ");
  w.sint(orig_cpu);
  w.put(" => ");
  w.sint(dest_cpu);
  w.ch('\n');
  commit(w.p);
}

void TimehistText::lost(uint64_t time, uint32_t cpu, uint64_t count) {
  fmt::memory_buffer stamp;
  append_usec_time(stamp, time);
  fmt::format_to(std::back_inserter(buffer_), "{:>15} lost {} events on cpu {}\n",
                 std::string_view(stamp.data(), stamp.size()), count, cpu);
  flush_if_full();
}

void TimehistText::summary(const analysis::TimehistSummary& s) {
  auto out = std::back_inserter(buffer_);
  if (o_.idle_hist) {
    fmt::format_to(out, "\nIdle-time summary\n{:>{}}  parent  sched-out  ", "comm", comm_width_);
    append(buffer_, "  idle-time   min-idle    avg-idle    max-idle  stddev  migrations\n");
  } else if (o_.state) {
    fmt::format_to(out, "\nWait-time summary\n{:>{}}  parent   sched-in  ", "comm", comm_width_);
    append(buffer_, "   run-time      sleep      iowait     preempt       delay\n");
  } else {
    fmt::format_to(out, "\nRuntime summary\n{:>{}}  parent   sched-in  ", "comm", comm_width_);
    append(buffer_, "   run-time    min-run     avg-run     max-run  stddev  migrations\n");
  }
  fmt::format_to(out, "{:>{}}            (count)  ", "", comm_width_);
  fmt::format_to(out, "     (msec)     (msec)      (msec)      (msec)       {}\n", o_.state ? "(msec)" : "%");
  fmt::format_to(out, "{}\n", kDashes.substr(0, 117));
  auto rows = [&](const std::vector<analysis::TimehistTaskSummary>& tasks) {
    for (const analysis::TimehistTaskSummary& task : tasks) task_row(task);
  };
  rows(s.tasks);
  if (s.tasks.empty()) append(buffer_, "<no still running tasks>\n");
  append(buffer_, "\nTerminated tasks:\n");
  rows(s.terminated);
  if (s.terminated.empty()) append(buffer_, "<no terminated tasks>\n");
  flush_if_full();
  if (!s.idle_stats) return;
  summary_tail(s);
}

void TimehistText::task_row(const analysis::TimehistTaskSummary& task) {
  auto out = std::back_inserter(buffer_);
  std::string_view name = task_name(task.task);
  fmt::format_to(out, "{:>{}}   {:>5}  {:>9} ", name, comm_width_, task.ppid, task.count);
  sched_time(task.total_run, 8);
  if (o_.state) {
    sched_time(task.total_sleep, 6);
    buffer_.push_back(' ');
    sched_time(task.total_iowait, 6);
    buffer_.push_back(' ');
    sched_time(task.total_preempt, 6);
    buffer_.push_back(' ');
    sched_time(task.total_delay, 6);
  } else {
    sched_time(task.min_run, 6);
    buffer_.push_back(' ');
    sched_time(task.mean_run, 6);
    buffer_.push_back(' ');
    sched_time(task.max_run, 6);
    fmt::format_to(out, "  {:5.2f}   {:>5}", static_cast<double>(task.rel_stddev), task.migrations);
  }
  buffer_.push_back('\n');
  flush_if_full();
}

void TimehistText::summary_tail(const analysis::TimehistSummary& s) {
  auto out = std::back_inserter(buffer_);
  append(buffer_, "\nIdle stats:\n");
  for (const analysis::TimehistCpuIdle& idle : s.idle) {
    if (idle.count > 0) {
      fmt::format_to(out, "    CPU {:>2} idle for ", idle.cpu);
      sched_time(idle.total, 6);
      fmt::format_to(out, " msec  ({:6.2f}%)\n",
                     100.0 * static_cast<double>(idle.total) / static_cast<double>(s.hist_time));
    } else {
      fmt::format_to(out, "    CPU {:>2} idle entire time window\n", idle.cpu);
    }
  }
  if (s.idle_callchains) {
    append(buffer_, "\nIdle stats by callchain:\n");
    std::string_view dots(kDashes);
    // perf's table header; its rows never come (see analysis/sched/sched_timehist).
    for (const analysis::TimehistCpuIdle& cpu : s.idle_chain_cpus) {
      fmt::format_to(out, "  CPU {:>2}:", cpu.cpu);
      sched_time(cpu.total, 6);
      append(buffer_, " msec\n");
      fmt::format_to(out, "  {:>16}  {:>8}  {}\n", "Idle time (msec)", "Count", "Callchains");
      fmt::format_to(out, "  {}  {}  {}\n\n", dots.substr(0, 16), dots.substr(0, 8), dots.substr(0, 50));
    }
  }
  fmt::format_to(out, "\n    Total number of unique tasks: {}\nTotal number of context switches: {}\n",
                 s.task_count, s.sched_count);
  append(buffer_, "           Total run time (msec): ");
  sched_time(s.total_run_time, 2);
  append(buffer_, "\n    Total scheduling time (msec): ");
  sched_time(s.hist_time, 2);
  fmt::format_to(out, " (x {})\n", s.max_cpu);
  flush_if_full();
}

}  // namespace sonde::output
