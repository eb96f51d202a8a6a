#include "output/evlist/evlist_text.hpp"

#include "output/perf_header.hpp"

namespace sonde::output {

namespace {

void append_event(const std::vector<EvlistEvent>& events, size_t index, const EvlistOptions& options,
                  fmt::memory_buffer& out) {
  const EvlistEvent& event = events[index];
  auto it = fmt::appender(out);
  if (options.group) {
    if (event.leader != index) return;  // printed in its leader's line
    std::vector<const EvlistEvent*> members;
    for (const EvlistEvent& other : events)
      if (other.leader == index) members.push_back(&other);
    if (members.size() > 1) fmt::format_to(it, "{}{{", event.group_name);
    for (size_t i = 0; i < members.size(); ++i) fmt::format_to(it, "{}{}", i ? "," : "", members[i]->name);
    if (members.size() > 1) out.push_back('}');
    out.push_back('\n');
    return;
  }
  out.append(event.name);
  // perf's comma_fprintf: ':' before the first detail, ',' before the others.
  bool first = true;
  auto detail = [&](std::string_view text) {
    out.push_back(first ? ':' : ',');
    out.append(text);
    first = false;
  };
  if (options.verbose) {
    append_attr_fields(event.attr, out, AttrFieldStyle::evlist);
    first = false;
  } else if (options.freq) {
    detail(fmt::format(" {}={}", event.attr.freq ? "sample_freq" : "sample_period", event.attr.sample_freq));
  }
  if (options.trace_fields) {
    if (event.attr.type != PERF_TYPE_TRACEPOINT) {
      detail(" (not a tracepoint)");
    } else if (!event.trace_fields || event.trace_fields->empty()) {
      detail(" (no trace field)");
    } else {
      for (size_t i = 0; i < event.trace_fields->size(); ++i)
        detail(i == 0 ? " trace_fields: " + (*event.trace_fields)[i] : (*event.trace_fields)[i]);
    }
  }
  out.push_back('\n');
}

}  // namespace

void append_evlist(const std::vector<EvlistEvent>& events, const EvlistOptions& options,
                   fmt::memory_buffer& out) {
  bool has_tracepoint = false;
  for (size_t i = 0; i < events.size(); ++i) {
    append_event(events, i, options, out);
    has_tracepoint |= events[i].attr.type == PERF_TYPE_TRACEPOINT;
  }
  if (has_tracepoint && !options.trace_fields)
    out.append(
        std::string_view("# Tip: use 'sonde evlist --trace-fields' to show fields for tracepoint events\n"));
}

}  // namespace sonde::output
