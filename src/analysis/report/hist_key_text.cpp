#include "analysis/report/hist_key_text.hpp"

#include <fmt/format.h>

namespace sonde::analysis {

std::string hist_key_text(const ReportTables& tables, const HistEntry& entry, SortKey key) {
  const SampleContext& context = tables.contexts[entry.context];
  const FrameLocation& location = tables.locations.location(entry.location);
  switch (key) {
    case SortKey::comm:
      return tables.comms[context.comm];
    case SortKey::pid:
      return fmt::format("{:>7}:{}", context.tid, tables.comms[context.comm]);
    case SortKey::dso:
      return location.dso ? location.dso->short_name : "[unknown]";
    case SortKey::sym: {
      const Function& function = tables.locations.function(location.function);
      std::string text = fmt::format("[{}] ", entry.level);
      if (function.resolved) return text + function.shown_name();
      // perf's "%-#.*llx" with 16 digits: no 0x prefix for zero.
      if (entry.address == 0) return text + "0000000000000000";
      return text + fmt::format("0x{:016x}", entry.address);
    }
    case SortKey::srcline:
      return tables.locations.srcline(location.srcline);
    case SortKey::parent:
      return entry.parent == kNoId ? "[other]" : tables.locations.function(entry.parent).name;
    case SortKey::cpu:
      return fmt::format("{:03}", context.cpu);
    case SortKey::trace:
      return context.trace == kNoId ? "N/A" : tables.traces[context.trace];
    case SortKey::time:
      // perf's timestamp__scnprintf_usec (or _nsec under --ns).
      return tables.time_in_ns
                 ? fmt::format("{}.{:09}", context.time / 1000000000, context.time % 1000000000)
                 : fmt::format("{}.{:06}", context.time / 1000000000, context.time % 1000000000 / 1000);
  }
  return "";
}

}  // namespace sonde::analysis
