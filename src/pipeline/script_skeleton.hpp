#pragma once
// script -g python: perf's script skeleton for a recording's tracepoints, written as
// perf-script.py in the current directory (replaced when it exists, as perf replaces it).
#include <string>

#include "base/error.hpp"

namespace sonde::pipeline {

// Returns the name of the file written.
Result<std::string> write_python_skeleton(const std::string& input);

}  // namespace sonde::pipeline
