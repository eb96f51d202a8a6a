#include "output/probe/probe_text.hpp"

#include <fmt/format.h>

namespace sonde::output {

std::string short_source_path(std::string_view path) {
  constexpr size_t kMax = 30;
  if (path.size() <= kMax) return std::string(path);
  std::string_view tail = path.substr(path.size() - kMax);
  size_t slash = tail.find('/');
  return std::string(slash == std::string_view::npos ? tail : tail.substr(slash + 1));
}

std::string probe_event_line(const ProbeEventText& event) {
  std::string text = fmt::format("  {:<20} (on {}", event.group + ":" + event.event, event.where);
  if (!event.binary.empty()) text += " in " + event.binary;
  if (!event.args.empty()) {
    text += " with";
    for (const std::string& arg : event.args) text += " " + arg;
  }
  return text + ")";
}

std::string added_events_text(const std::vector<ProbeEventText>& events) {
  if (events.empty()) return "";
  std::string text = events.size() == 1 ? "Added new event:\n" : "Added new events:\n";
  for (const ProbeEventText& event : events) text += probe_event_line(event) + "\n";
  const ProbeEventText& last = events.back();
  text += fmt::format(
      "\nYou can now use it in all perf tools, such as:\n\n\tsonde record -e {}:{} -aR sleep 1\n\n",
      last.group, last.event);
  return text;
}

std::string variables_text(std::string_view spec, const std::vector<VariablesAtProbe>& places) {
  std::string text = fmt::format("Available variables at {}\n", spec);
  for (const VariablesAtProbe& place : places) {
    text += fmt::format("\t@<{}>\n", place.location);
    if (place.variables.empty()) text += "\t\t(No matched variables)\n";
    for (const auto& [type, name] : place.variables) text += fmt::format("\t\t{}\t{}\n", type, name);
  }
  return text;
}

std::string source_listing_text(const SourceListing& listing) {
  std::string text = fmt::format("<{}>\n", listing.header);
  const std::vector<std::string_view>& lines = listing.text;
  auto show = [&](unsigned line, bool numbered) {
    if (line == 0 || line > lines.size()) return false;
    if (numbered)
      text += fmt::format("{:>7}  {}\n", line - listing.offset, lines[line - 1]);
    else
      text += fmt::format("         {}\n", lines[line - 1]);
    return true;
  };
  unsigned line = listing.first;
  for (unsigned code : listing.code_lines) {
    for (; line < code; ++line) show(line, false);
    show(line++, true);
  }
  // perf shows three more lines after the last one with code when no end was given.
  unsigned last = listing.last ? listing.last : line + 2;
  for (; line <= last; ++line)
    if (!show(line, false)) break;
  return text;
}

}  // namespace sonde::output
