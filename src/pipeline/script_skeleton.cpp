#include "pipeline/script_skeleton.hpp"

#include <optional>

#include "base/file.hpp"
#include "output/python/python_skeleton.hpp"
#include "perfdata/reader.hpp"
#include "session/tracepoint_formats.hpp"

namespace sonde::pipeline {

Result<std::string> write_python_skeleton(const std::string& input) {
  if (input == "-")
    return fail("-g reads a file's tracepoint formats from its header: save the stream to a file first");
  auto reader = perfdata::PerfDataReader::open(input);
  if (!reader) return tl::unexpected(reader.error());
  std::optional<session::TracepointFormats> formats;
  if (Bytes blob = reader->tracing_data(); !blob.empty()) {
    auto parsed = session::TracepointFormats::parse(blob);
    if (!parsed) return tl::unexpected(parsed.error().with_context(input));
    formats.emplace(std::move(*parsed));
  }
  std::string text =
      output::python_script_skeleton(formats ? formats->events_by_id() : std::vector<tep_event*>{});
  const std::string name = "perf-script.py";
  if (auto written = replace_file(name, text, 0644); !written) return tl::unexpected(written.error());
  return name;
}

}  // namespace sonde::pipeline
