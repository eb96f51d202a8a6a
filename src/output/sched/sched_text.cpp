#include "output/sched/sched_text.hpp"

#include <cstring>

#include "output/sched/timehist_text.hpp"

namespace sonde::output {

namespace {

constexpr const char* kColorPids = "\033[34m";  // perf's PERF_COLOR_BLUE
constexpr const char* kColorCpus = "\033[41m";  // perf's PERF_COLOR_BG_RED
constexpr const char* kColorReset = "\033[m";

}  // namespace

void append_bad_events(const BadEventCounts& c, fmt::memory_buffer& out) {
  auto it = std::back_inserter(out);
  if (c.nr_unordered_timestamps && c.nr_timestamps)
    fmt::format_to(
        it, "  INFO: {:.3f}% unordered timestamps ({} out of {})\n",
        static_cast<double>(c.nr_unordered_timestamps) / static_cast<double>(c.nr_timestamps) * 100.0,
        c.nr_unordered_timestamps, c.nr_timestamps);
  if (c.nr_lost_events && c.nr_events)
    fmt::format_to(it, "  INFO: {:.3f}% lost events ({} out of {}, in {} chunks)\n",
                   static_cast<double>(c.nr_lost_events) / static_cast<double>(c.nr_events) * 100.0,
                   c.nr_lost_events, c.nr_events, c.nr_lost_chunks);
  if (c.nr_context_switch_bugs && c.nr_timestamps) {
    fmt::format_to(
        it, "  INFO: {:.3f}% context switch bugs ({} out of {})",
        static_cast<double>(c.nr_context_switch_bugs) / static_cast<double>(c.nr_timestamps) * 100.0,
        c.nr_context_switch_bugs, c.nr_timestamps);
    if (c.nr_lost_events) append(out, " (due to lost events?)");
    out.push_back('\n');
  }
}

void append_latency_table(const analysis::SchedLatencyReport& report, fmt::memory_buffer& out) {
  auto it = std::back_inserter(out);
  append(out,
         "\n "
         "---------------------------------------------------------------------------------------------------"
         "----"
         "------------------------------------\n");
  append(out,
         "  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | Max delay "
         "start  "
         "         | Max delay end          |\n");
  append(out,
         " --------------------------------------------------------------------------------------------------"
         "------"
         "-----------------------------------\n");
  fmt::memory_buffer start, end;
  for (const analysis::SchedLatencyRow& row : report.rows) {
    size_t before = out.size();
    if (row.num_merged > 1)
      fmt::format_to(it, "  {}:({}) ", row.comm, row.num_merged);
    else
      fmt::format_to(it, "  {}:{} ", row.comm, row.tid);
    for (size_t n = out.size() - before; n < 24; ++n) out.push_back(' ');
    start.clear();
    end.clear();
    append_usec_time(start, row.max_lat_start);
    append_usec_time(end, row.max_lat_end);
    uint64_t avg = row.total_lat / row.nb_atoms;
    fmt::format_to(
        it,
        "|{:11.3f} ms |{:9} | avg:{:8.3f} ms | max:{:8.3f} ms | max start: {:>12} s | max end: {:>12} s\n",
        static_cast<double>(row.total_runtime) / 1e6, row.nb_atoms, static_cast<double>(avg) / 1e6,
        static_cast<double>(row.max_lat) / 1e6, std::string_view(start.data(), start.size()),
        std::string_view(end.data(), end.size()));
  }
  append(out,
         " --------------------------------------------------------------------------------------------------"
         "---------------\n");
  fmt::format_to(it, "  TOTAL:                |{:11.3f} ms |{:9} |\n",
                 static_cast<double>(report.all_runtime) / 1e6, report.all_count);
  append(out, " ---------------------------------------------------\n");
  append_bad_events(
      BadEventCounts{report.nr_timestamps, report.nr_unordered_timestamps, report.nr_context_switch_bugs,
                     report.nr_events, report.nr_lost_events, report.nr_lost_chunks},
      out);
  out.push_back('\n');
}

// Appends `text` at `at`, between `color` and the reset when colours are on.
char* SchedMapText::colored(char* at, const char* color, std::string_view text) const {
  auto put = [&at](std::string_view part) {
    std::memcpy(at, part.data(), part.size());
    at += part.size();
  };
  if (color_ && color != nullptr) {
    put(color);
    put(text);
    put(kColorReset);
  } else {
    put(text);
  }
  return at;
}

void SchedMapText::line(const analysis::SchedMapLine& line) {
  // Room for every cell with colours, the time and the announcement (a comm is 16 bytes at most).
  size_t room = 64 + line.cells.size() * 24 + line.comm.size() + 64;
  if (scratch_.size() < room) scratch_.resize(room);
  char* at = scratch_.data();
  *at++ = ' ';
  *at++ = ' ';
  for (const analysis::SchedMapCell& cell : line.cells) {
    if (!cell.current)
      *at++ = ' ';
    else
      at = colored(at, cell.colored_cpu ? kColorCpus : nullptr, "*");
    if (cell.present) {
      char text[3] = {cell.shortname[0], cell.shortname[1], ' '};
      at = colored(at, cell.colored_task ? kColorPids : nullptr, std::string_view(text, 3));
    } else {
      std::memcpy(at, "   ", 3);
      at += 3;
    }
  }
  if (line.cpu_shown) {
    // "  %12s secs " of perf's usec timestamp, digits written in place.
    char digits[32];
    char* end = digits + sizeof digits;
    char* d = end;
    uint64_t usec = (line.time % 1000000000) / 1000;
    for (int i = 0; i < 6; ++i, usec /= 10) *--d = static_cast<char>('0' + usec % 10);
    *--d = '.';
    uint64_t sec = line.time / 1000000000;
    do {
      *--d = static_cast<char>('0' + sec % 10);
      sec /= 10;
    } while (sec != 0);
    *at++ = ' ';
    *at++ = ' ';
    for (auto pad = end - d; pad < 12; ++pad) *at++ = ' ';
    while (d < end) *at++ = *d++;
    for (char c : std::string_view(" secs ")) *at++ = c;
  }
  buffer_.append(scratch_.data(), at);
  if (line.cpu_shown) {
    if (line.announce) {
      std::string_view shortname(line.shortname, line.shortname[1] == 0 ? 1 : 2);
      std::string text = fmt::format("{} => {}:{}", shortname, line.comm, line.tid);
      if (scratch_.size() < text.size() + 32) scratch_.resize(text.size() + 32);
      char* end = colored(scratch_.data(), line.colored_task ? kColorPids : nullptr, text);
      buffer_.append(scratch_.data(), end);
    }
    if (line.new_cpu >= 0) fmt::format_to(std::back_inserter(buffer_), " (CPU {})", line.new_cpu);
  }
  buffer_.push_back('\n');
  if (buffer_.size() >= (1u << 20) && !failed_) {
    auto written = out_.write(buffer_.data(), buffer_.size());
    if (!written) {
      failed_ = true;
      error_ = written.error();
    }
    buffer_.clear();
  }
}

Result<void> SchedMapText::finish(const BadEventCounts& counts) {
  append_bad_events(counts, buffer_);
  if (failed_) return tl::unexpected(error_);
  if (auto written = out_.write(buffer_.data(), buffer_.size()); !written) return written;
  buffer_.clear();
  return out_.flush();
}

}  // namespace sonde::output
