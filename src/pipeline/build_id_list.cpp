#include "pipeline/build_id_list.hpp"

#include <fmt/format.h>

#include <unordered_set>

#include "format/build_ids.hpp"

namespace sonde::pipeline {

namespace {

// "<build-id> <path>" per BUILD_ID entry, only those in `hit` when it is given.
std::string feature_entries(const perfdata::FeatureSet& features,
                            const std::unordered_set<std::string>* hit) {
  std::string out;
  if (const auto& entries = features.build_ids) {
    for (const auto& entry : *entries) {
      if (hit && !hit->count(entry.filename)) continue;
      out += fmt::format("{:<40} {}\n", format::build_id_hex(entry.build_id), entry.filename);
    }
  }
  return out;
}

}  // namespace

Result<BuildIdSource> open_build_id_source(const std::string& path, bool with_hits) {
  BuildIdSource source{path, with_hits, std::nullopt, std::nullopt};
  if (!with_hits && path != "-") {
    auto reader = perfdata::PerfDataReader::open(path);
    if (!reader) return tl::unexpected(reader.error());
    if (!reader->is_pipe() && reader->features().build_ids) {
      source.reader.emplace(std::move(*reader));
      return source;
    }
  }
  // -H, a pipe-mode stream or a file without a BUILD_ID section (perf record -z writes none):
  // which DSOs samples hit needs the whole replay.
  auto session = session::Session::open(path);
  if (!session) return tl::unexpected(session.error());
  source.session.emplace(std::move(*session));
  return source;
}

Result<std::string> list_build_ids(BuildIdSource& source) {
  if (source.reader) return feature_entries(source.reader->features(), nullptr);
  struct Ignore : session::SessionVisitor {
    void on_sample(const session::SampleEvent&) override {}
  } ignore;
  if (auto processed = source.session->process(ignore); !processed)
    return tl::unexpected(processed.error().with_context(source.path));
  std::string out;
  if (source.session->reader().is_pipe() || !source.session->reader().features().build_ids) {
    // As perf: without a BUILD_ID section to list (a stream, a -z file), the DSOs samples hit
    // are listed with what their MMAP2 records or HEADER_BUILD_ID records said (blank when nothing).
    for (const auto& dso : source.session->machine().dsos().all())
      if (dso->hit) out += fmt::format("{:<40} {}\n", dso->build_id, dso->long_name);
    return out;
  }
  std::unordered_set<std::string> hit;
  for (const auto& dso : source.session->machine().dsos().all())
    if (dso->hit) hit.insert(dso->long_name);
  return feature_entries(source.session->reader().features(), &hit);
}

}  // namespace sonde::pipeline
