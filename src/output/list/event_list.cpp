#include "output/list/event_list.hpp"

#include <fmt/format.h>

namespace sonde::output {

std::string format_event_list_line(const events::ListedEvent& event) {
  return fmt::format("  {:<50} [{}]\n", event.name, events::event_kind_label(event.kind));
}

void print_event_list(std::FILE* out, const std::vector<events::ListedEvent>& events) {
  std::string text;
  for (const auto& event : events) text += format_event_list_line(event);
  std::fputs(text.c_str(), out);
}

std::string format_parsed_event(size_t index, const events::EventSpec& event) {
  const perf_event_attr& attr = event.attr;
  std::string line = fmt::format("{} type={} config={:#x}", event.name, attr.type, attr.config);
  if (attr.config1) line += fmt::format(" config1={:#x}", attr.config1);
  if (attr.config2) line += fmt::format(" config2={:#x}", attr.config2);
  line += fmt::format(" leader={}", event.group_leader);
  if (event.group_leader != static_cast<int>(index) || event.in_group) line += " grouped";
  std::string excludes;
  if (attr.exclude_user) excludes += 'u';
  if (attr.exclude_kernel) excludes += 'k';
  if (attr.exclude_hv) excludes += 'h';
  if (attr.exclude_guest) excludes += 'G';
  if (attr.exclude_host) excludes += 'H';
  if (attr.exclude_idle) excludes += 'I';
  if (!excludes.empty()) line += " exclude=" + excludes;
  if (attr.precise_ip) line += fmt::format(" precise={}", attr.precise_ip);
  if (attr.freq)
    line += fmt::format(" freq={}", attr.sample_freq);
  else if (attr.sample_period)
    line += fmt::format(" period={}", attr.sample_period);
  if (attr.pinned) line += " pinned";
  if (attr.exclusive) line += " exclusive";
  if (event.max_stack) line += fmt::format(" max-stack={}", event.max_stack);
  if (!event.call_graph.empty()) line += " call-graph=" + event.call_graph;
  return line;
}

}  // namespace sonde::output
