#pragma once
// The term lists between slashes: "msr/event=0x0/", "cycles/period=100000,name=foo/",
// "cpu/event=0x0e,umask=0x01,inv,cmask=0x01/". Generic terms (config=, period=, name=...) work
// on every event; other terms are a PMU's format fields, packed into config bits as
// /sys/bus/event_source/devices/<pmu>/format says, or its named events.
#include <string>
#include <vector>

#include "events/event_spec.hpp"
#include "events/scanner.hpp"
#include "events/syntax.hpp"
#include "kernel/pmu_sysfs.hpp"

namespace sonde::events {

struct Term {
  std::string name;
  size_t pos = 0;  // of the name, in the -e argument
  bool has_value = false;
  std::string value;  // as written, quotes removed
  size_t value_pos = 0;
};

// Reads "t1=v1,t2,..." up to and including the closing '/' (the opening one is already taken).
Parsed<std::vector<Term>> parse_terms(Scanner& scanner);

// Terms on an event that is not a PMU's: hardware, software, cache, raw ("cycles/period=N/").
Parsed<void> apply_generic_terms(EventSpec& event, const std::vector<Term>& terms);
// Terms on a PMU's event: sets attr.type to the PMU's and packs the format fields.
Parsed<void> apply_pmu_terms(EventSpec& event, const kernel::Pmu& pmu, const std::vector<Term>& terms);

}  // namespace sonde::events
