#include "output/convert/ctf_tracedat.hpp"

#include <fmt/format.h>
#include <traceevent/event-parse.h>

#include <unordered_map>
#include <vector>

#include "output/convert/ctf_writer.hpp"
#include "tracedat/record_merger.hpp"

namespace sonde::output {

namespace {

struct EventClass {
  std::string name;
  std::vector<CtfTracepointField> fields;
};

}  // namespace

Result<CtfTraceDatSummary> write_ctf_trace(const tracedat::TraceDatReader& reader,
                                           const std::string& directory) {
  auto writer = CtfWriter::create(directory, static_cast<size_t>(std::max(reader.cpu_count(), 1)));
  if (!writer) return tl::unexpected(writer.error());
  tracedat::RecordMerger merger(reader);
  std::vector<EventClass> classes;
  std::unordered_map<uint64_t, uint32_t> class_ids;  // by buffer << 32 | event id
  CtfTraceDatSummary summary;
  size_t buffer = 0;
  while (const tep_record* record = merger.next(buffer)) {
    tep_event* format = reader.record_format(*record);
    if (format == nullptr) continue;  // no format to type its fields with
    int id = format->id;
    auto [known, fresh] =
        class_ids.try_emplace(static_cast<uint64_t>(buffer) << 32 | static_cast<uint32_t>(id),
                              static_cast<uint32_t>(classes.size()));
    if (fresh) {
      EventClass& klass = classes.emplace_back();
      klass.name = reader.event_name(buffer, id, format);
      std::vector<std::string> taken;
      klass.fields = ctf_tracepoint_fields(*format, taken);
    }
    std::string* out = writer->begin_event(static_cast<uint32_t>(record->cpu), known->second,
                                           static_cast<uint64_t>(record->ts));
    if (out == nullptr) break;
    put_ctf_tracepoint_fields(*out, classes[known->second].fields, static_cast<const uint8_t*>(record->data),
                              static_cast<size_t>(record->size));
    ++summary.events;
  }
  if (!writer->status()) return tl::unexpected(writer->status().error());
  // A damaged page: no metadata, so the directory is not taken for a whole trace.
  if (!merger.problems().empty()) return fail(merger.problems().front());

  std::string event_classes;
  for (size_t id = 0; id < classes.size(); ++id) {
    event_classes +=
        fmt::format("event {{\n\tid = {};\n\tname = {};\n\tstream_id = 0;\n\tfields := struct {{\n", id,
                    ctf_quoted(classes[id].name));
    append_ctf_declarations(event_classes, classes[id].fields);
    event_classes += "\t} align(8);\n};\n\n";
  }
  if (auto finished = writer->finish({}, 0, event_classes); !finished)
    return tl::unexpected(finished.error());
  summary.bytes = writer->bytes();
  return summary;
}

}  // namespace sonde::output
