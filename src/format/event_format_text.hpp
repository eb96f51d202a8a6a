#pragma once
// An ftrace event format as tracefs writes it ("name:", "ID:", "format:", one line per field,
// "print fmt:"), checked before libtraceevent's tep_parse_event is given one from a file. Its
// parser does not survive damaged text: fuzzing found a NULL strcmp on a field name holding NUL
// bytes and a SIGFPE folding a division by a literal zero. Shared by the trace.dat reader and
// perf.data's TRACING_DATA.
#include <string_view>

namespace sonde::tracedat {

// True when `format` has the shape every kernel's formats have: printable ASCII, tabs and
// newlines only; the name, ID and format lines; field lines of a declaration and numeric offset,
// size and (optional) signed; then a print fmt (to the end: its strings may hold newlines) that
// starts with a quoted string, closes its strings and character literals, nests its brackets
// properly, uses only C's characters outside them and divides by no literal zero.
bool event_format_is_parseable(std::string_view format);

}  // namespace sonde::tracedat
