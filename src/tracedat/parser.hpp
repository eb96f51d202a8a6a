#pragma once
// trace.dat parsing for TraceDatReader::open: the file header, the metadata (v6 in sequence, v7
// in sections, compressed or not), options, buffers and each CPU's pages.
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace sonde::tracedat {

class TraceDatReader;

// Fills `reader` (whose file is mapped) from its bytes; a truncated or corrupt file is one error
// naming what was cut short.
Result<void> parse_trace_dat(TraceDatReader& reader, const std::string& path);

}  // namespace sonde::tracedat
