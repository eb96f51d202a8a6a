#pragma once
// The wall-clock view (collapse and flamegraph --wall) of a `record --off-cpu` file: on-CPU
// samples of a time-based event (cpu-clock or task-clock, whose periods are ns) and the off-CPU
// samples (offcpu-time, the state slept in as its weight, and offcpu-preempted) in one profile,
// each off-CPU stack topped by a frame naming its state — "[S sleeping]", "[D uninterruptible]"
// (I/O and the like), "[R preempted]" — so that sleep, I/O wait and waiting for a CPU separate,
// and a thread's stacks add up to the time it lived.
#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/stacks/script_text.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::analysis {

// The off-CPU state a sample of the view stands for, as its frame names it ("[S sleeping]",
// "[D uninterruptible]", "[R preempted]"); empty for an on-CPU sample.
std::string_view off_cpu_state_frame(std::string_view event, uint64_t weight);
// Whether the view takes samples of this event.
bool wall_time_event(std::string_view event);

// The view needs off-CPU samples and time-based on-CPU ones: an error naming what `path` lacks.
Result<void> check_wall_time_sources(bool on_cpu, bool off_cpu, const std::string& path);

// Calls `sink` with every sample of the view, in time order; fails on a file without off-CPU
// samples or without a time-based on-CPU event.
Result<void> for_each_wall_time_stack(const std::string& path, const symbols::SymbolizerOptions& options,
                                      const StackSampleSink& sink, Diagnostics& diagnostics);

}  // namespace sonde::analysis
