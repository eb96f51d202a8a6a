#pragma once
// perf script -g python: the script skeleton perf 6.1 writes for a recording — trace_begin and
// trace_end, one handler per tracepoint format the file holds (in id order, with the event's
// fields as parameters and a print of each in perf's conversion: %s for strings, arrays, flag and
// symbolic fields, %d signed, %u the rest), trace_unhandled and perf's two helpers. The text is
// perf's to the byte (its line breaks every 5 parameters and every 3 printed fields, trailing
// spaces included), so a script written from either runs the same.
#include <string>
#include <vector>

struct tep_event;

namespace sonde::output {

std::string python_script_skeleton(const std::vector<tep_event*>& events);

}  // namespace sonde::output
