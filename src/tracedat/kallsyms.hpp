#pragma once
// /proc/kallsyms text into a tep_handle's function map, as tep_parse_kallsyms does it (same
// lines taken, same lines skipped, same stop on a malformed line) without its sscanf per line,
// which made it the largest fixed cost of reading a trace.dat.
#include <string_view>

struct tep_handle;

namespace sonde::tracedat {

void register_kallsyms(tep_handle* tep, std::string_view kallsyms);

}  // namespace sonde::tracedat
