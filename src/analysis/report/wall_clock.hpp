#pragma once
// report --wall: a `record --off-cpu` file's on-CPU samples (cpu-clock or task-clock, periods in
// ns) and off-CPU ones (offcpu-time, offcpu-preempted) as one event, "wall-clock", each off-CPU
// stack topped by a frame naming its state, as collapse/flamegraph --wall show them (their
// names come from analysis/stacks/wall_time). The state frames live in a DSO of their own,
// "[off-CPU]", at addresses 1 (S), 2 (D) and 3 (R), which a resolver wrapped around the report's
// names.
#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/report/report_frames.hpp"
#include "base/error.hpp"
#include "perfdata/attrs.hpp"
#include "session/dso.hpp"
#include "session/session.hpp"

namespace sonde::analysis {

inline constexpr const char* kWallClockEventName = "wall-clock";

// What the view makes of each event's samples.
enum class WallClockKind : int8_t { skipped = -1, on_cpu = 0, blocked = 1, preempted = 2 };

// The kind of each of the file's events; fails when the file has no off-CPU or no time-based
// on-CPU event.
Result<std::vector<WallClockKind>> wall_clock_kinds(const std::vector<perfdata::EventAttr>& events,
                                                    const std::string& path);

// The state frame's address in the [off-CPU] DSO for a sample of this kind and weight: 0 for an
// on-CPU one.
uint64_t off_cpu_state_address(WallClockKind kind, uint64_t weight);

// The [off-CPU] DSO of the session's machine.
session::Dso& off_cpu_dso(session::Session& session);

// Names the [off-CPU] DSO's addresses; everything else goes to `inner`.
std::unique_ptr<FrameResolver> wall_clock_resolver(std::unique_ptr<FrameResolver> inner,
                                                   const session::Dso& dso);

}  // namespace sonde::analysis
