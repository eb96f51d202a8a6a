#pragma once
// perf's ways of naming the script -s runs: a path, "python:PATH" or "py:PATH" for any
// extension, or the name of a script shipped in the scripts directory ($PERF_EXEC_PATH's
// scripts/python, sonde's own unless set).
#include <optional>
#include <string>

#include "base/error.hpp"

namespace sonde::pipeline {

// The script's path; a usage error for Perl scripts and names without ".py" or a prefix.
Result<std::string> find_python_script(const std::string& name);

// A shipped script run by name (perf script NAME): its path, when the scripts directory's
// python/bin has NAME-report.
std::optional<std::string> shipped_python_script(const std::string& name);

// script -l: the shipped scripts, from their python/bin/*-report files' "# args:" and
// "# description:" lines, as perf lists them (by name here; perf keeps the directory's order).
Result<std::string> python_script_listing();

}  // namespace sonde::pipeline
