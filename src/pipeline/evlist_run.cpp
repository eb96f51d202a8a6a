#include "pipeline/evlist_run.hpp"

#include <traceevent/event-parse.h>

#include <optional>

#include "perfdata/reader.hpp"
#include "session/session.hpp"
#include "session/tracepoint_formats.hpp"

namespace sonde::pipeline {

Result<void> print_evlist(std::FILE* out, const std::string& input, const output::EvlistOptions& options) {
  if (input == "-")
    return fail(
        "sonde evlist reads a file's header, and a pipe's comes as records: save the stream to a file first");
  auto reader = perfdata::PerfDataReader::open(input);
  if (!reader) return tl::unexpected(reader.error());
  std::optional<session::TracepointFormats> formats;
  if (Bytes blob = reader->tracing_data(); !blob.empty())
    if (auto parsed = session::TracepointFormats::parse(blob)) formats.emplace(std::move(*parsed));
  const auto& attrs = reader->attrs().events();
  std::vector<output::EvlistEvent> events;
  for (size_t i = 0; i < attrs.size(); ++i) {
    output::EvlistEvent event;
    event.attr = attrs[i].attr;
    event.name = session::event_name(attrs[i]);
    event.leader = i;
    if (event.attr.type == PERF_TYPE_TRACEPOINT && formats) {
      if (tep_event* format = formats->find(event.attr.config)) {
        if (attrs[i].name.empty()) event.name = session::TracepointFormats::qualified_name(format);
        std::vector<std::string> fields;
        for (tep_format_field* field = format->format.fields; field != nullptr; field = field->next)
          fields.emplace_back(field->name);
        event.trace_fields = std::move(fields);
      }
    }
    events.push_back(std::move(event));
  }
  if (const auto& groups = reader->features().groups)
    for (const perfdata::GroupDesc& group : *groups)
      for (uint32_t member = group.leader; member < group.leader + group.members && member < events.size();
           ++member) {
        events[member].leader = group.leader;
        if (group.name != "{anon_group}") events[member].group_name = group.name;
      }
  fmt::memory_buffer text;
  output::append_evlist(events, options, text);
  std::fwrite(text.data(), 1, text.size(), out);
  return {};
}

}  // namespace sonde::pipeline
