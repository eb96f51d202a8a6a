#include "analysis/script/event_switch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <tuple>

namespace sonde::analysis {

Result<EventSwitch> EventSwitch::make(const std::string& on, const std::string& off, bool show_on_off,
                                      const std::vector<std::string>& event_names) {
  EventSwitch made;
  made.show_on_off_ = show_on_off;
  for (auto [name, slot, which] : {std::tuple{&on, &made.on_, "on"}, std::tuple{&off, &made.off_, "off"}}) {
    if (name->empty()) continue;
    auto found = std::find(event_names.begin(), event_names.end(), *name);
    if (found == event_names.end())
      return fail(fmt::format("--switch-{} event {} is not in the file (its events: {})", which, *name,
                              fmt::join(event_names, ", ")));
    *slot = static_cast<size_t>(found - event_names.begin());
  }
  made.discarding_ = made.on_.has_value();
  return made;
}

bool EventSwitch::discard(size_t index) {
  if (on_ && discarding_) {
    if (index != *on_) return true;
    discarding_ = false;
    return !show_on_off_;
  }
  if (off_ && !discarding_ && index == *off_) {
    discarding_ = true;
    return !show_on_off_;
  }
  return false;
}

}  // namespace sonde::analysis
