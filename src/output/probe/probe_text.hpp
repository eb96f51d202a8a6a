#pragma once
// What perf probe prints: the "Added new event(s):" block with its `perf record` hint (sonde's
// command in it), `-l`'s one line per probe, `-V`'s variables, `-F`'s function names, and the
// shortened source paths they share.
#include <string>
#include <string_view>
#include <vector>

namespace sonde::output {

struct ProbeEventText {
  std::string group, event;
  std::string where;   // "add_ints", "sum_to:5@workloads/probe_targets.cpp", "0x1300"
  std::string binary;  // "" for a kernel probe
  std::vector<std::string> args;
};

// perf's path shortening: a path over 30 characters keeps what follows the first '/' of its
// last 30 characters.
std::string short_source_path(std::string_view path);

// "Added new event:" (or "events:"), one line per event, and the hint naming the last one.
std::string added_events_text(const std::vector<ProbeEventText>& events);
// "  GROUP:EVENT (on WHERE in BINARY with ARGS)", the name padded to 20 columns.
std::string probe_event_line(const ProbeEventText& event);

struct VariablesAtProbe {
  std::string location;                                        // "add_ints+0"
  std::vector<std::pair<std::string, std::string>> variables;  // (C type, name), sorted by name
};
// -V: "Available variables at SPEC", then per probe address its variables, tab-indented.
std::string variables_text(std::string_view spec, const std::vector<VariablesAtProbe>& places);

struct SourceListing {
  std::string header;                  // inside the <...> of the first line
  std::vector<std::string_view> text;  // the source file's lines
  unsigned offset = 0;                 // subtracted from line numbers (a function's declaration line)
  unsigned first = 0, last = 0;        // absolute; `last` 0: three lines past the last code line
  std::vector<unsigned> code_lines;    // absolute, ascending
};
// -L: perf's listing, a code line as "%7d  TEXT", any other as nine spaces and TEXT.
std::string source_listing_text(const SourceListing& listing);

}  // namespace sonde::output
