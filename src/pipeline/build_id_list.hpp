#pragma once
// sonde buildid-list: the build-ids a recording holds (its BUILD_ID feature), or with -H and for
// a pipe-mode stream the DSOs its samples hit, "<build-id> <path>" per DSO as perf prints them.
#include <optional>
#include <string>

#include "base/error.hpp"
#include "perfdata/reader.hpp"
#include "session/session.hpp"

namespace sonde::pipeline {

// An opened recording: its header alone when that answers, else a session to replay.
struct BuildIdSource {
  std::string path;
  bool with_hits = false;
  std::optional<perfdata::PerfDataReader> reader;
  std::optional<session::Session> session;
};

// Opens `path` ("-" for a pipe); `with_hits` (-H) lists only the DSOs samples hit.
Result<BuildIdSource> open_build_id_source(const std::string& path, bool with_hits);

// The listing's lines; a replay that fails is the error.
Result<std::string> list_build_ids(BuildIdSource& source);

}  // namespace sonde::pipeline
