#include "tracedat/report.hpp"

#include <fmt/format.h>
#include <traceevent/event-parse.h>

#include <algorithm>

#include "base/strings.hpp"
#include "tracedat/event_formatter.hpp"
#include "tracedat/record_merger.hpp"

namespace sonde::tracedat {

namespace {

constexpr size_t kFlushAt = 1 << 20;

Result<void> flush(std::string& text, std::FILE* out) {
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), out) != text.size())
    return failf("cannot write the report: {}", errno_text(errno));
  text.clear();
  return {};
}

// -F filters as trace-cmd applies them: a record passes when any filter matches it (or has no
// rule for any event); a kernel or user stack trace passes when the record before it on its
// CPU passed.
class RecordFilter {
 public:
  explicit RecordFilter(tep_handle* tep) : tep_(tep) {}
  ~RecordFilter() {
    for (auto* filter : filters_) tep_filter_free(filter);
  }
  RecordFilter(const RecordFilter&) = delete;
  RecordFilter& operator=(const RecordFilter&) = delete;

  Result<void> add(const std::string& text) {
    // libtraceevent 1.7 crashes on an operator with nothing to its right ("pid ==", "a && ");
    // trace-cmd with it. Refuse those before the parser sees them.
    if (auto r = check_operands(text); !r) return r;
    tep_event_filter* filter = tep_filter_alloc(tep_);
    if (!filter) return fail("out of memory for a filter");
    filters_.push_back(filter);
    enum tep_errno err = tep_filter_add_filter_str(filter, text.c_str());
    if (err < 0) {
      char reason[256] = "";
      tep_filter_strerror(filter, err, reason, sizeof(reason));
      // The reason repeats the filter with a caret line; its last line says what is wrong.
      std::string_view why = trim(reason);
      why = why.substr(why.rfind('\n') == std::string_view::npos ? 0 : why.rfind('\n') + 1);
      return failf("bad filter '{}': {}", text, why.empty() ? "cannot parse it" : why);
    }
    if (!stack_ids_ready_) {
      for (const char* name : {"kernel_stack", "user_stack"})
        if (tep_event* event = tep_find_event_by_name(tep_, "ftrace", name)) stack_ids_.push_back(event->id);
      stack_ids_ready_ = true;
    }
    return {};
  }

  static Result<void> check_operands(const std::string& text) {
    static constexpr std::string_view kOperatorChars = "=<>~&|!";
    for (size_t i = 0; i < text.size(); ++i) {
      if (kOperatorChars.find(text[i]) == std::string_view::npos) continue;
      size_t next = text.find_first_not_of(" \t\n", i + 1);
      if (next == std::string::npos || text[next] == ')' || text[next] == ',')
        return failf("bad filter '{}': '{}' has nothing on its right", text, text[i]);
    }
    return {};
  }

  bool active() const { return !filters_.empty(); }

  bool passes(const tep_record& const_record) {
    auto& record = const_cast<tep_record&>(const_record);
    bool found = false;
    for (auto* filter : filters_) {
      int ret = tep_filter_match(filter, &record);
      if (ret == TEP_ERRNO__NO_FILTER || ret == TEP_ERRNO__FILTER_MATCH) {
        found = true;
        break;
      }
    }
    if (!found) {
      int id = tep_data_type(tep_, &record);
      bool stack = std::find(stack_ids_.begin(), stack_ids_.end(), id) != stack_ids_.end();
      if (!stack || !last_printed(record.cpu)) return false;
    }
    last_printed(record.cpu) = true;
    return true;
  }

 private:
  std::vector<char>::reference last_printed(int cpu) {
    size_t index = static_cast<size_t>(std::max(cpu, 0));
    if (printed_.size() <= index) printed_.resize(index + 1, 0);
    return printed_[index];
  }

  tep_handle* tep_;
  std::vector<tep_event_filter*> filters_;
  std::vector<int> stack_ids_;
  bool stack_ids_ready_ = false;
  std::vector<char> printed_;
};

Result<void> write_stat(const TraceDatReader& reader, std::FILE* out) {
  std::string text = fmt::format("cpus={}\n", reader.cpu_count());
  text +=
      "\nKernel buffer statistics:\n"
      "  Note: \"entries\" are the entries left in the kernel ring buffer and are not\n"
      "        recorded in the trace data. They should all be zero.\n\n";
  if (reader.cpu_stats_text().empty())
    text += " No stats in this file\n";
  else
    text += reader.cpu_stats_text() + "\n";
  size_t index = 0;
  for (const auto& cpu : reader.buffers().front().cpus) {
    text += fmt::format("CPU{} data recorded at offset={:#x}\n    {} bytes in size\n", index++,
                        cpu.shown_offset, cpu.shown_size);
  }
  return flush(text, out);
}

}  // namespace

Result<void> write_report(const TraceDatReader& reader, const ReportOptions& options, std::FILE* out) {
  if (options.stat) return write_stat(reader, out);
  tep_handle* tep = reader.tep();

  RecordFilter filter(tep);
  if (!options.filters.empty()) {
    reader.load_all_events();
    reader.kernel_functions();
  }
  for (const auto& text : options.filters)
    if (auto r = filter.add(text); !r) return r;

  // Instances are named before their lines, right-aligned to the longest name; the top
  // buffer's lines then get as many spaces.
  const auto& buffers = reader.buffers();
  std::vector<std::string> prefixes(buffers.size());
  if (buffers.size() > 1) {
    size_t width = 0;
    for (size_t b = 1; b < buffers.size(); ++b) width = std::max(width, buffers[b].name.size());
    prefixes[0] = fmt::format("{:>{}}  ", "", width);
    for (size_t b = 1; b < buffers.size(); ++b) prefixes[b] = fmt::format("{:>{}}: ", buffers[b].name, width);
  }
  std::vector<std::unique_ptr<EventFormatter>> formatters;
  for (const auto& prefix : prefixes) {
    FormatOptions format;
    format.nanoseconds = options.nanoseconds;
    format.clock_in_ns = reader.clock_in_ns();
    format.line_prefix = prefix;
    format.need_kallsyms = [&reader] { return &reader.kernel_functions(); };
    format.symbol_address = [&reader](std::string_view name) {
      return reader.kernel_functions().address_of(name);
    };
    formatters.push_back(std::make_unique<EventFormatter>(tep, format));
  }

  RecordMerger merger(reader);

  std::string text = fmt::format("cpus={}\n", reader.cpu_count());
  text.reserve(kFlushAt + 4096);
  size_t buffer = 0;
  while (const tep_record* record = merger.next(buffer)) {
    // Formats are parsed as their events first appear.
    reader.load_event(tep_data_type(tep, const_cast<tep_record*>(record)));  // libtraceevent reads only
    if (!options.cpus.empty() &&
        std::find(options.cpus.begin(), options.cpus.end(), record->cpu) == options.cpus.end())
      continue;
    if (filter.active() && !filter.passes(*record)) continue;
    formatters[buffer]->format(*record, text);
    if (text.size() >= kFlushAt)
      if (auto r = flush(text, out); !r) return r;
  }
  if (auto r = flush(text, out); !r) return r;
  if (!merger.problems().empty()) return fail(merger.problems().front());
  return {};
}

}  // namespace sonde::tracedat
