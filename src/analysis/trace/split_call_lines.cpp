#include "analysis/trace/split_call_lines.hpp"

namespace sonde::analysis {

SplitCallLines::Line SplitCallLines::admit(const kernel::SyscallTraceEvent& event) {
  Line line{true, event.flags};
  constexpr int kRtSigreturn = 15;  // printed alone at its entry, never resumed
  if ((event.flags & (SONDE_TRACE_CONTINUED | SONDE_TRACE_NO_RETURN)) != 0 || event.nr == kRtSigreturn)
    return line;
  if ((event.flags & SONDE_TRACE_UNFINISHED) != 0) {
    auto whole = exits_printed_.find(event.tid);
    if (whole != exits_printed_.end() && whole->second == event.enter_ns) {
      exits_printed_.erase(whole);
      line.print = false;
      return line;
    }
    entries_printed_[event.tid] = event.enter_ns;
    return line;
  }
  bool entry_printed = false;
  if (!entries_printed_.empty()) {
    auto pending = entries_printed_.find(event.tid);
    if (pending != entries_printed_.end()) {
      entry_printed = pending->second == event.enter_ns;
      entries_printed_.erase(pending);
    }
  }
  if (entry_printed) {
    line.flags |= SONDE_TRACE_RESUMED;
  } else if ((event.flags & SONDE_TRACE_RESUMED) != 0) {
    line.flags &= static_cast<uint8_t>(~SONDE_TRACE_RESUMED);
    exits_printed_[event.tid] = event.enter_ns;
  }
  return line;
}

}  // namespace sonde::analysis
