#include "output/trace/trace_event_text.hpp"

#include <fmt/format.h>

#include <cstring>

#include "output/trace/syscall_line.hpp"

namespace sonde::output {

namespace {

// A record's comm: up to 16 bytes, NUL-terminated when shorter.
std::string_view comm_text(const char (&comm)[16]) { return {comm, strnlen(comm, sizeof comm)}; }

}  // namespace

void TraceEventText::append(std::string& out, const kernel::SyscallTraceEvent& event, size_t size) {
  std::string_view name = catalogue_.name(event.nr);
  std::string unknown_name;
  if (name.empty()) {
    unknown_name = "syscall_" + std::to_string(event.nr);
    name = unknown_name;
  }
  bool continued = (event.flags & SONDE_TRACE_CONTINUED) != 0;
  SyscallCall call;
  call.syscall = name;
  if (!continued) {
    call.fields = catalogue_.fields(event.nr);
    for (size_t i = 0; i < 6; ++i) call.args[i] = event.args[i];
  }
  call.ret = event.ret;
  // The strings the tracer read: slot 0 at the start of `strings`, slot 1 after a whole slot.
  size_t string_bytes = size > offsetof(kernel::SyscallTraceEvent, strings)
                            ? size - offsetof(kernel::SyscallTraceEvent, strings)
                            : 0;
  for (size_t slot = 0; slot < SONDE_TRACE_STRING_SLOTS; ++slot) {
    size_t length = event.string_length[slot];
    size_t start = slot * SONDE_TRACE_STRING_SIZE;
    if (length == 0 || event.string_arg[slot] >= 6 || start + length > string_bytes) continue;
    std::string_view text(event.strings + start, length);
    // A path's read includes its '\0'; argv's elements each end in one, which the printer
    // splits on (so an empty last argument survives).
    bool argv = (name == "execve" && event.string_arg[slot] == 1) ||
                (name == "execveat" && event.string_arg[slot] == 2);
    if (!argv && text.ends_with('\0')) text.remove_suffix(1);
    call.strings[event.string_arg[slot]] = text;
  }

  pid_t pid = static_cast<pid_t>(event.pid);
  pid_t tid = static_cast<pid_t>(event.tid);
  std::string_view comm = comm_text(event.comm);
  processes_.set_comm(tid, comm);
  bool forked = name == "clone" || name == "clone3" || name == "fork" || name == "vfork";
  if (forked && event.ret > 0) processes_.inherit_comm(static_cast<pid_t>(event.ret), comm);

  const SyscallContext& context = context_;

  SyscallLinePrefix prefix;
  bool unfinished = (event.flags & SONDE_TRACE_UNFINISHED) != 0;
  bool resumed = (event.flags & SONDE_TRACE_RESUMED) != 0;
  uint64_t stamp = continued ? event.exit_ns : event.enter_ns;
  prefix.time_known = !continued;
  prefix.time_ms = relative_ms(stamp);
  if (!continued && !unfinished)
    prefix.duration_ms = static_cast<double>(event.exit_ns - event.enter_ns) / 1e6;
  prefix.show_tid = options_.show_thread;
  prefix.show_comm = options_.show_comm;
  prefix.comm = comm;
  prefix.tid = tid;
  if (continued || resumed) {
    append_syscall_continued_line(out, prefix, call, pid, context);
  } else {
    // perf's table entry and the arguments' formats, worked out the first time a syscall prints.
    const SyscallLineFormat& format = line_format(event.nr, call);
    if (unfinished)
      append_syscall_interrupted_line(out, prefix, call, format, pid, context);
    else
      append_syscall_line(out, prefix, call, format, pid, context);
  }

  if ((place_finder_ || user_chain_) && !continued && !unfinished) append_callchain(out, event);
  // An entry printed alone comes back at its exit: what the call did is learnt then.
  if (unfinished) return;

  // What the call did to the process's descriptors, after printing what it was given.
  std::optional<std::string_view> path;
  for (size_t i = 0; i < call.fields.size() && i < 6; ++i)
    if (call.fields[i].name == "filename" || call.fields[i].name == "pathname") path = call.strings[i];
  processes_.apply(pid, name, call.args, path, event.ret);
}

void TraceEventText::append(std::string& out, const kernel::SyscallTraceEventDwarf& event, size_t size) {
  std::vector<Place> chain;
  if (dwarf_unwinder_) chain = dwarf_unwinder_(event);
  user_chain_ = &chain;
  append(out, event.call, std::min(size, sizeof event.call));
  user_chain_ = nullptr;
}

void TraceEventText::append(std::string& out, const kernel::TracepointTraceEvent& event) {
  std::string_view comm = comm_text(event.comm);
  processes_.set_comm(static_cast<pid_t>(event.tid), comm);
  TracepointLinePrefix prefix;
  prefix.time_ms = relative_ms(event.time_ns);
  prefix.with_duration_column = options_.syscalls;
  prefix.show_tid = options_.show_thread;
  prefix.show_comm = options_.show_comm;
  tracepoints_.append(out, prefix, event, [this](pid_t pid) { return processes_.comm(pid); });
}

void TraceEventText::append_callchain(std::string& out, const kernel::SyscallTraceEvent& event) {
  // perf's callchain under a trace line: leaf first (the kernel's exit path, then user code),
  // each entry indented to column 39.
  constexpr std::string_view kIndent = "                                       ";
  unsigned printed = 0;
  auto entry = [&](const Place& place) {
    if (printed++ >= options_.max_stack) return;
    out += kIndent;
    if (place.inlined) {
      out += place.symbol;
      out += " (inlined)\n";
      return;
    }
    // perf: the address within the DSO in brackets when no symbol covers it, 0 outside every map
    // (what a frame-pointer walk finds past its end).
    if (!place.symbol.empty())
      out += place.symbol;
    else
      fmt::format_to(std::back_inserter(out), "[{:x}]", place.dso.empty() ? 0 : place.dso_address);
    out += " (";
    out += place.dso.empty() ? std::string_view("[unknown]") : place.dso;
    out += ")\n";
  };
  auto frame = [&](uint64_t address, bool kernel) {
    if (place_finder_)
      entry(place_finder_(static_cast<pid_t>(event.pid), static_cast<pid_t>(event.tid), address, kernel));
  };
  for (size_t i = 0; i < event.kernel_frames && i < SONDE_TRACE_KERNEL_FRAMES; ++i)
    frame(event.kernel_stack[i], true);
  if (user_chain_ != nullptr) {
    for (const Place& place : *user_chain_) entry(place);
    return;
  }
  for (size_t i = 0; i < event.user_frames && i < SONDE_TRACE_USER_FRAMES; ++i)
    frame(event.user_stack[i], false);
}

void TraceEventText::append(std::string& out, const kernel::FaultTraceEvent& event) {
  std::string_view comm = comm_text(event.comm);
  auto tid = static_cast<pid_t>(event.tid);
  processes_.set_comm(tid, comm);
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{:10.3f} ({:6.3f} ms): ", relative_ms(event.time_ns), 0.0);
  if (options_.show_thread) {
    if (options_.show_comm) fmt::format_to(it, "{}/", comm.substr(0, 14));
    fmt::format_to(it, "{} ", tid);
  }
  // perf's print_location for the instruction (its symbol) and for the address (its map).
  bool kernel = !event.user_mode;
  auto pid = static_cast<pid_t>(event.pid);
  Place site = place_finder_ ? place_finder_(pid, tid, event.ip, kernel) : Place{};
  Place target = place_finder_ ? place_finder_(pid, tid, event.addr, kernel) : Place{};
  fmt::format_to(it, "{}fault [", event.major ? "maj" : "min");
  if (!site.symbol.empty())
    fmt::format_to(it, "{}+{:#x}", site.symbol, site.symbol_offset);
  else if (!site.dso.empty())
    fmt::format_to(it, "{:#x}", site.dso_address);
  else
    fmt::format_to(it, "{:#x}", event.addr);  // perf prints the fault's address here too
  out += "] => ";
  if (!target.dso.empty())
    fmt::format_to(it, "{}@{:#x}", target.dso, target.dso_address);
  else
    fmt::format_to(it, "{:#x}", event.addr);
  fmt::format_to(it, " ({}{})\n", target.dso.empty() ? '?' : 'd', kernel ? 'k' : '.');
}

const SyscallLineFormat& TraceEventText::line_format(int nr, const SyscallCall& call) {
  if (nr < 0 || static_cast<size_t>(nr) >= line_formats_.size()) {
    other_format_.emplace(call.syscall, call.fields);
    return *other_format_;
  }
  auto& format = line_formats_[static_cast<size_t>(nr)];
  if (!format) format.emplace(call.syscall, call.fields);
  return *format;
}

double TraceEventText::relative_ms(uint64_t stamp) {
  if (options_.absolute_time) return static_cast<double>(stamp) / 1e6;
  if (!base_ns_) base_ns_ = stamp;
  return (static_cast<double>(stamp) - static_cast<double>(*base_ns_)) / 1e6;
}

}  // namespace sonde::output
