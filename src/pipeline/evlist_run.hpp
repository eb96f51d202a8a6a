#pragma once
// sonde evlist: the events of a recording, from its header alone (attrs, EVENT_DESC's names,
// GROUP_DESC's groups, TRACING_DATA's formats), printed as perf evlist prints them.
#include <cstdio>
#include <string>

#include "base/error.hpp"
#include "output/evlist/evlist_text.hpp"

namespace sonde::pipeline {

Result<void> print_evlist(std::FILE* out, const std::string& input, const output::EvlistOptions& options);

}  // namespace sonde::pipeline
