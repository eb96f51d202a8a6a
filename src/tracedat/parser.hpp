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

// Whether libtraceevent may be handed this event format: it folds constant arguments while it
// parses them and dies of SIGFPE on a division by a literal zero (found by fuzzing: a damaged
// size ran a format on into the saved cmdlines, "migration/0"). No kernel format has one.
bool format_is_safe_to_parse(std::string_view format);

}  // namespace sonde::tracedat
