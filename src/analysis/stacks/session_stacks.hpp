#pragma once
// The samples of a perf.data file as StackSamples, each frame named as perf script names it
// (symbol without offset or "[unknown]", the DSO's path or "[unknown]", the address as the map
// gives it), so folding a file directly gives what folding its perf script text gives. No
// text round trip: the session, the symbolizer and the DWARF unwinder feed the folding.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "analysis/stacks/script_text.hpp"
#include "base/error.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::analysis {

// Calls `sink` for every sample `filter` accepts (perf script's event name decides), in time
// order. Samples without a callchain have no frames, as perf script prints none beneath them.
Result<void> for_each_session_stack(const std::string& path, const symbols::SymbolizerOptions& options,
                                    EventFilter& filter, const StackSampleSink& sink,
                                    Diagnostics& diagnostics);

// Calls `each` with the time (ns) and comm of every sample of the file, in time order.
Result<void> for_each_sample_time(const std::string& path,
                                  const std::function<void(uint64_t time_ns, std::string_view comm)>& each,
                                  Diagnostics& diagnostics);

}  // namespace sonde::analysis
