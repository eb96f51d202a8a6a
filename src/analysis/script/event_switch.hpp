#pragma once
// perf's --switch-on/--switch-off (report and script): samples count only after a sample of the
// "on" event, until one of the "off" event; the switching samples themselves are left out unless
// --show-on-off-events. As in perf's evswitch, "off" without "on" only drops the "off" samples.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde::analysis {

class EventSwitch {
 public:
  // The events named (as the file names them, `event_names`) by index; an empty name is unset.
  // A name the file has no event of is an error naming it.
  static Result<EventSwitch> make(const std::string& on, const std::string& off, bool show_on_off,
                                  const std::vector<std::string>& event_names);

  bool active() const { return on_ || off_; }
  // Whether the next sample, of event `index`, is left out; the switch moves as perf's does.
  bool discard(size_t index);

 private:
  std::optional<size_t> on_, off_;
  bool show_on_off_ = false;
  bool discarding_ = false;  // before the first "on" sample, after an "off" one
};

}  // namespace sonde::analysis
