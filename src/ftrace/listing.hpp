#pragma once
// What `sonde ftrace list` lists: tracers, events, filterable functions and options, each
// optionally narrowed by a glob.
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde::ftrace {

std::vector<std::string> list_tracers(const std::string& glob);
// "subsys:event"; a glob with a ':' matches the whole name, one without matches the subsystem
// or the event name.
Result<std::vector<std::string>> list_events(const std::string& glob);
// Lines of available_filter_functions ("vfs_read", "foo [mod]"); ":mod:NAME" keeps a module's.
// A locked-down kernel refuses to show them: the error says so.
Result<std::vector<std::string>> list_functions(const std::string& glob);
// trace_options as the kernel lists them ("print-parent", "nostacktrace").
Result<std::vector<std::string>> list_options(const std::string& glob);

}  // namespace sonde::ftrace
