#pragma once
// The kernel's dynamic probe definitions: tracefs' uprobe_events and kprobe_events, one line per
// probe ("p:GROUP/EVENT PLACE ARGS...", "r:..." for a return probe). Lines are appended, never
// truncated (a truncating write would delete every probe on the machine), and removed one by one
// with "-:GROUP/EVENT".
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::kernel {

enum class ProbeKind { uprobe, kprobe };

struct ProbeEventLine {
  ProbeKind kind = ProbeKind::uprobe;
  bool retprobe = false;
  std::string group, event;
  std::string place;                   // "PATH:0xOFFSET[(0xREF)]" or "SYMBOL[+OFFS]"
  std::vector<std::string> fetchargs;  // "NAME=FETCHARG[:TYPE]"
  std::string text;                    // the whole line as the kernel shows it
};

// "p:GROUP/EVENT PLACE ARGS" as written to the file.
std::string probe_event_definition(const ProbeEventLine& line);
// One line of uprobe_events or kprobe_events; nullopt for what is not a probe line.
std::optional<ProbeEventLine> parse_probe_event_line(std::string_view text, ProbeKind kind);

// Whether the kernel has the file (kprobe_events is absent without CONFIG_KPROBE_EVENTS).
bool probe_events_supported(ProbeKind kind);
// The probes defined now, in the file's order.
Result<std::vector<ProbeEventLine>> read_probe_events(ProbeKind kind);
// Defines one probe; the error carries the kernel's errno and what to check.
Result<void> add_probe_event(const ProbeEventLine& line);
// Removes GROUP/EVENT; an error when it is not defined or still in use (EBUSY).
Result<void> remove_probe_event(ProbeKind kind, std::string_view group, std::string_view event);

}  // namespace sonde::kernel
