#include "analysis/stacks/wall_time.hpp"

#include <string_view>
#include <vector>

#include "analysis/stacks/session_stacks.hpp"

namespace sonde::analysis {

namespace {

constexpr std::string_view kOnCpuEvents[] = {"cpu-clock", "task-clock"};
constexpr std::string_view kBlocked = "offcpu-time", kPreempted = "offcpu-preempted";

}  // namespace

std::string_view off_cpu_state_frame(std::string_view event, uint64_t weight) {
  if (event == kPreempted) return "[R preempted]";
  if (event != kBlocked) return {};
  return weight == 2 ? "[D uninterruptible]" : "[S sleeping]";
}

bool wall_time_event(std::string_view event) {
  for (std::string_view on_cpu : kOnCpuEvents)
    if (event == on_cpu) return true;
  return event == kBlocked || event == kPreempted;
}

Result<void> for_each_wall_time_stack(const std::string& path, const symbols::SymbolizerOptions& options,
                                      const StackSampleSink& sink, Diagnostics& diagnostics) {
  std::vector<std::string> events;
  for (std::string_view event : kOnCpuEvents) events.emplace_back(event);
  events.emplace_back(kBlocked);
  events.emplace_back(kPreempted);
  EventFilter filter(events);
  bool on_cpu = false, off_cpu = false;
  std::vector<StackFrame> frames;
  auto each = [&](const StackSample& sample) {
    if (sample.event != kBlocked && sample.event != kPreempted) {
      on_cpu = true;
      sink(sample);
      return;
    }
    off_cpu = true;
    // The state on top of the stack (frames are leaf first).
    frames.clear();
    StackFrame state;
    state.symbol = off_cpu_state_frame(sample.event, sample.weight);
    state.dso = "[unknown]";
    frames.push_back(state);
    frames.insert(frames.end(), sample.frames.begin(), sample.frames.end());
    StackSample topped = sample;
    topped.frames = frames;
    sink(topped);
  };
  if (auto replayed = for_each_session_stack(path, options, filter, each, diagnostics); !replayed)
    return replayed;
  return check_wall_time_sources(on_cpu, off_cpu, path);
}

Result<void> check_wall_time_sources(bool on_cpu, bool off_cpu, const std::string& path) {
  if (!off_cpu)
    return failf("{} has no off-CPU samples for --wall; record with 'sonde record --off-cpu'", path);
  if (!on_cpu)
    return failf(
        "{} has no cpu-clock or task-clock samples for --wall (their periods are time); record with "
        "'sonde record --off-cpu -e cpu-clock'",
        path);
  return {};
}

}  // namespace sonde::analysis
