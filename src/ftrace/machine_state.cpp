#include "ftrace/machine_state.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "ftrace/buffer_stats.hpp"

namespace sonde::ftrace {

namespace {

std::string first_line(const Result<std::string>& text) {
  if (!text) return "?";
  return std::string(trim(split(*text, '\n').front()));
}

std::string clock_in_use(const std::string& clocks) {
  auto open = clocks.find('['), close = clocks.find(']');
  if (open == std::string::npos || close == std::string::npos) return clocks;
  return clocks.substr(open + 1, close - open - 1);
}

// The non-comment lines of a tracefs list file (triggers, pid lists, function filters).
std::vector<std::string> listed(const std::string& text) {
  std::vector<std::string> lines;
  for (auto& line : split(text, '\n')) {
    std::string_view trimmed = trim(line);
    if (!trimmed.empty() && !trimmed.starts_with('#')) lines.emplace_back(trimmed);
  }
  return lines;
}

// Every event directory of the instance as (system, event).
std::vector<std::pair<std::string, std::string>> event_dirs(const Instance& instance) {
  std::vector<std::pair<std::string, std::string>> events;
  auto systems = list_directory(instance.path("events"));
  if (!systems) return events;
  for (const auto& system : *systems) {
    auto names = list_directory(instance.path("events/" + system));
    if (!names) continue;
    for (const auto& name : *names)
      if (is_directory(instance.path("events/" + system + "/" + name))) events.emplace_back(system, name);
  }
  return events;
}

// The text that removes a trigger as the trigger file lists it.
std::string trigger_removal(const std::string& listed_trigger) {
  std::string trigger = listed_trigger;
  if (auto bracket = trigger.find(" ["); bracket != std::string::npos) trigger.resize(bracket);
  if (trigger.starts_with("hist")) return "!" + trigger;
  auto parts = split(trigger.substr(0, trigger.find(' ')), ':');
  if ((parts[0] == "enable_event" || parts[0] == "disable_event" || parts[0] == "enable_hist" ||
       parts[0] == "disable_hist") &&
      parts.size() >= 3)
    return "!" + parts[0] + ":" + parts[1] + ":" + parts[2];
  return "!" + parts[0];
}

}  // namespace

Result<InstanceState> read_instance_state(const Instance& instance) {
  InstanceState state;
  state.name = instance.name();
  state.tracer = first_line(instance.read("current_tracer"));
  state.tracing_on = first_line(instance.read("tracing_on"));
  state.clock = clock_in_use(first_line(instance.read("trace_clock")));
  state.buffer_size_kb = first_line(instance.read("buffer_size_kb"));
  state.buffer_total_size_kb = first_line(instance.read("buffer_total_size_kb"));
  if (auto text = instance.read("set_event")) state.enabled_events = listed(*text);
  if (auto text = instance.read("set_event_pid")) state.event_pids = join(listed(*text), " ");
  if (auto text = instance.read("set_ftrace_pid")) {
    auto pids = listed(*text);
    state.function_pids = pids.size() == 1 && pids[0] == "no pid" ? "" : join(pids, " ");
  }
  auto function_filter = instance.read("set_ftrace_filter");
  if (!function_filter)
    state.function_filter = path_exists(instance.path("set_ftrace_filter")) ? "unreadable (lockdown?)" : "";
  else
    state.function_filter = join(listed(*function_filter), " ");
  for (const auto& [system, name] : event_dirs(instance)) {
    std::string dir = "events/" + system + "/" + name + "/";
    if (auto filter = instance.read(dir + "filter"); filter && trim(*filter) != "none")
      state.filters.emplace_back(system + ":" + name, std::string(trim(*filter)));
    if (auto triggers = instance.read(dir + "trigger"))
      for (auto& trigger : listed(*triggers)) state.triggers.emplace_back(system + ":" + name, trigger);
  }
  return state;
}

Result<MachineState> read_machine_state() {
  auto top = Instance::top();
  if (!top) return tl::unexpected(top.error());
  MachineState state;
  state.root = top->root();
  auto top_state = read_instance_state(*top);
  if (!top_state) return tl::unexpected(top_state.error());
  state.top = std::move(*top_state);
  if (auto names = list_directory(top->path("instances"))) {
    for (const auto& name : *names) {
      auto instance = Instance::existing(name);
      if (!instance) continue;
      if (auto instance_state = read_instance_state(*instance))
        state.instances.push_back(std::move(*instance_state));
    }
  }
  if (auto devices = list_directory("/sys/class/block"))
    for (const auto& device : *devices)
      if (auto enable = read_file("/sys/class/block/" + device + "/trace/enable");
          enable && trim(*enable) == "1")
        state.blk_devices.push_back(device);
  return state;
}

namespace {

void format_instance(const InstanceState& state, std::string& out) {
  out += fmt::format("{}:\n", state.name.empty() ? "top level" : "instance " + state.name);
  out += fmt::format("  tracer          {}\n", state.tracer);
  out += fmt::format("  tracing_on      {}\n", state.tracing_on);
  out += fmt::format("  clock           {}\n", state.clock);
  out += fmt::format("  buffer          {} KB per CPU, {} KB in all\n", state.buffer_size_kb,
                     state.buffer_total_size_kb);
  out += fmt::format("  events          {}\n",
                     state.enabled_events.empty() ? "none enabled" : join(state.enabled_events, " "));
  if (!state.event_pids.empty()) out += fmt::format("  event pids      {}\n", state.event_pids);
  if (!state.function_pids.empty()) out += fmt::format("  function pids   {}\n", state.function_pids);
  if (!state.function_filter.empty()) out += fmt::format("  functions       {}\n", state.function_filter);
  if (state.filters.empty()) out += "  filters         none\n";
  for (const auto& [event, filter] : state.filters)
    out += fmt::format("  filter          {}: {}\n", event, filter);
  if (state.triggers.empty()) out += "  triggers        none\n";
  for (const auto& [event, trigger] : state.triggers)
    out += fmt::format("  trigger         {}: {}\n", event, trigger);
}

}  // namespace

std::string format_machine_state(const MachineState& state) {
  std::string out = fmt::format("tracefs {}\n", state.root);
  format_instance(state.top, out);
  if (state.instances.empty()) out += "instances: none\n";
  for (const auto& instance : state.instances) format_instance(instance, out);
  out += fmt::format("blktrace: {}\n", state.blk_devices.empty() ? "off on every block device"
                                                                 : "on for " + join(state.blk_devices, " "));
  return out;
}

std::vector<Error> reset_instance(const Instance& instance) {
  std::vector<Error> failures;
  auto must = [&](std::string_view file, std::string_view text) {
    if (auto done = instance.write(file, text); !done) failures.push_back(done.error());
  };
  // Files a kernel may lack or lock down (the function tracer's) are reset where they can be.
  auto where_allowed = [&](std::string_view file, std::string_view text) {
    std::string path = instance.path(file);
    if (!path_exists(path)) return;
    int err = write_control_file(path, text, false);
    if (err != 0 && err != EPERM && err != EACCES && err != ENODEV)
      failures.push_back(Error{fmt::format("writing '{}' to {} failed: {}", text, path, errno_name(err))});
  };
  // Written only when not already so: a write to either makes the kernel expand a ring buffer
  // still at its boot-time minimum (buffer_size_kb "7 (expanded: 1408)" becomes 1410), a change
  // a reset must not make on a machine it finds clean.
  auto must_change = [&](std::string_view file, std::string_view text) {
    if (auto now = instance.read(file); now && trim(*now) == text) return;
    must(file, text);
  };
  must("tracing_on", "0");
  must_change("current_tracer", "nop");
  must_change("set_event", "");
  for (const auto& [system, name] : event_dirs(instance)) {
    std::string dir = "events/" + system + "/" + name + "/";
    if (auto filter = instance.read(dir + "filter"); filter && trim(*filter) != "none")
      must(dir + "filter", "0");
    if (auto triggers = instance.read(dir + "trigger"))
      for (const auto& trigger : listed(*triggers))
        if (auto removed = instance.append(dir + "trigger", trigger_removal(trigger)); !removed)
          failures.push_back(removed.error());
  }
  if (auto systems = list_directory(instance.path("events")))
    for (const auto& system : *systems)
      if (path_exists(instance.path("events/" + system + "/filter")))
        where_allowed("events/" + system + "/filter", "0");
  for (const char* file :
       {"set_event_pid", "set_event_notrace_pid", "set_ftrace_pid", "set_ftrace_notrace_pid",
        "set_ftrace_filter", "set_ftrace_notrace", "set_graph_function", "set_graph_notrace"})
    where_allowed(file, "");
  must("trace_clock", "local");
  if (auto cpus = buffer_cpus(instance)) {
    // tracing_cpumask takes comma-separated 32-bit hex words, most significant first.
    int words = (cpus->back() + 32) / 32;
    std::vector<uint32_t> mask(static_cast<size_t>(words), 0);
    for (int cpu : *cpus) mask[static_cast<size_t>(words - 1 - cpu / 32)] |= 1u << (cpu % 32);
    std::vector<std::string> parts;
    for (uint32_t word : mask) parts.push_back(fmt::format("{:x}", word));
    must("tracing_cpumask", join(parts, ","));
  }
  for (const char* option : {"options/stacktrace", "options/event-fork", "options/function-fork"})
    where_allowed(option, "0");
  must("trace", "");
  must("tracing_on", "1");
  return failures;
}

std::vector<std::string> instances_left_behind(const Instance& top) {
  std::vector<std::string> left;
  if (auto names = list_directory(top.path("instances")))
    for (const auto& name : *names)
      if (name.starts_with("sonde-"))
        if (auto pid = parse_uint(std::string_view(name).substr(6), 10))
          if (::kill(static_cast<pid_t>(*pid), 0) != 0 && errno == ESRCH) left.push_back(name);
  return left;
}

ResetReport reset_machine(bool all_instances) {
  ResetReport report;
  auto top = Instance::top();
  if (!top) {
    report.failures.push_back(top.error());
    return report;
  }
  report.failures = reset_instance(*top);
  if (auto devices = list_directory("/sys/class/block"))
    for (const auto& device : *devices) {
      std::string enable = "/sys/class/block/" + device + "/trace/enable";
      if (auto text = read_file(enable); text && trim(*text) == "1")
        if (int err = write_control_file(enable, "0", false); err != 0)
          report.failures.push_back(
              Error{fmt::format("writing 0 to {} failed: {}", enable, errno_name(err))});
    }
  auto names = all_instances ? list_directory(top->path("instances")) : instances_left_behind(*top);
  if (names) {
    for (const auto& name : *names) {
      std::string dir = top->path("instances/" + name);
      if (::rmdir(dir.c_str()) == 0)
        report.removed_instances.push_back(name);
      else
        report.failures.push_back(
            Error{fmt::format("cannot remove instance {}: {}", dir, errno_text(errno))});
    }
  }
  return report;
}

}  // namespace sonde::ftrace
