#pragma once
// Where tracefs is, mounting it when it is not: a fresh machine has it compiled in but unmounted.
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde::kernel {

// The tracefs root ("/sys/kernel/tracing" usually). Mounts it there on first use if needed;
// an error says why it could not be found or mounted.
Result<std::string> tracefs_root();

// Tracepoint catalogue read from <root>/events.
Result<std::vector<std::string>> tracepoint_systems();
Result<std::vector<std::string>> tracepoint_names(const std::string& system);
// The numeric id perf_event_attr.config takes for a tracepoint.
Result<uint64_t> tracepoint_id(const std::string& system, const std::string& name);
// The text of <root>/events/<system>/<name>/format.
Result<std::string> tracepoint_format(const std::string& system, const std::string& name);

}  // namespace sonde::kernel
