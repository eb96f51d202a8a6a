#pragma once
// perf's ways of naming the script -s runs: a path, "python:PATH" or "py:PATH" for any
// extension, or the name of a script shipped in the scripts directory ($PERF_EXEC_PATH's
// scripts/python, sonde's own unless set).
#include <string>

#include "base/error.hpp"

namespace sonde::pipeline {

// The script's path; a usage error for Perl scripts and names without ".py" or a prefix.
Result<std::string> find_python_script(const std::string& name);

}  // namespace sonde::pipeline
