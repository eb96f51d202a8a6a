#pragma once
// One `sonde ftrace stream`: the same set-up as record, then events handed over live, in time
// order, until the command ends or a stop signal comes; the tracing state is put back after.
#include <functional>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "capture/signals.hpp"
#include "ftrace/live_reader.hpp"
#include "ftrace/local_tep.hpp"
#include "ftrace/tracing_session.hpp"

namespace sonde::ftrace {

// `on_event` gets each event with the handle that describes it. Returns the command's exit
// status as a shell reports it (0 without a command).
Result<int> stream_ftrace(capture::BlockedSignals& signals, const TracingRequest& request,
                          const std::vector<std::string>& command, Diagnostics& diagnostics,
                          const std::function<void(LocalTep&, const LiveEvent&)>& on_event);

}  // namespace sonde::ftrace
