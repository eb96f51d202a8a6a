#include "ftrace/event_selection.hpp"

#include "base/strings.hpp"
#include "kernel/tracefs.hpp"

namespace sonde::ftrace {

Result<EventCatalogue> read_event_catalogue() {
  auto systems = kernel::tracepoint_systems();
  if (!systems) return tl::unexpected(systems.error());
  EventCatalogue catalogue;
  for (const auto& system : *systems) {
    auto names = kernel::tracepoint_names(system);
    if (!names) return tl::unexpected(names.error());
    if (!names->empty()) catalogue.systems.emplace_back(system, std::move(*names));
  }
  return catalogue;
}

Result<EventSelection> select_events(std::string_view spec, const EventCatalogue& catalogue) {
  EventSelection selection;
  selection.spec = spec;
  auto colon = spec.find(':');
  auto add_system = [&](const std::string& system, const std::vector<std::string>& names) {
    selection.whole_systems.push_back(system);
    for (const auto& name : names) selection.events.push_back({system, name});
  };
  if (colon == std::string_view::npos) {
    // A subsystem (or glob of them); failing that, an event name in any subsystem.
    for (const auto& [system, names] : catalogue.systems)
      if (glob_match(spec, system)) add_system(system, names);
    if (selection.events.empty())
      for (const auto& [system, names] : catalogue.systems)
        for (const auto& name : names)
          if (glob_match(spec, name)) selection.events.push_back({system, name});
  } else {
    std::string_view system_pattern = spec.substr(0, colon), event_pattern = spec.substr(colon + 1);
    if (system_pattern.empty()) system_pattern = "*";
    for (const auto& [system, names] : catalogue.systems) {
      if (!glob_match(system_pattern, system)) continue;
      if (event_pattern.empty() || event_pattern == "*") {
        add_system(system, names);
        continue;
      }
      for (const auto& name : names)
        if (glob_match(event_pattern, name)) selection.events.push_back({system, name});
    }
  }
  if (selection.events.empty())
    return failf(
        "no trace event matches '{}'; 'sonde ftrace list -e' lists them (subsys, subsys:event, globs)", spec);
  return selection;
}

}  // namespace sonde::ftrace
