#pragma once
// perf's header block (perf script --header, --header-only; perf report --header): the file's
// layout, then one or more lines per feature it holds, then the features it lacks.
//   # ========
//   # captured on    : Sun Nov 22 13:54:38 2026
//   ...
//   # ========
//   #
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "perfdata/reader.hpp"

namespace sonde::output {

// `path` is the file read (its modification time is "captured on"); "-" for a pipe. With
// `show_info` (-I) the CPU and NUMA topology, caches and memory nodes are printed in full.
void append_header_info(const perfdata::PerfDataReader& reader, const std::string& path,
                        fmt::memory_buffer& out, bool show_info = false);
// The same block written to `out` (perf report --header prints what perf script --header does).
void print_header_info(std::FILE* out, const perfdata::PerfDataReader& reader, const std::string& path,
                       bool show_info = false);

// perf_event_attr__fprintf's list of an attr's non-zero fields: ", name = value" each in the
// header's event lines, ": name: value, name: value" after the event's name in perf evlist -v.
enum class AttrFieldStyle { header, evlist };
void append_attr_fields(const perf_event_attr& attr, fmt::memory_buffer& out,
                        AttrFieldStyle style = AttrFieldStyle::header);

}  // namespace sonde::output
