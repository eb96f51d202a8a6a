#include "pipeline/python_script.hpp"

#include <unistd.h>

#include <cstdlib>

#include "output/python/python_script_sink.hpp"

namespace sonde::pipeline {

Result<std::string> find_python_script(const std::string& name) {
  std::string path = name;
  bool prefixed = false;
  for (const char* prefix : {"python:", "py:", "Python:"}) {
    if (path.starts_with(prefix)) {
      path = path.substr(std::string_view(prefix).size());
      prefixed = true;
      break;
    }
  }
  if (!prefixed && (path.starts_with("perl:") || path.starts_with("pl:") || path.ends_with(".pl")))
    return fail_usage("-s " + name +
                      ": sonde runs Python scripts only (perf's Perl scripting is not supported)");
  if (!prefixed && !path.ends_with(".py"))
    return fail_usage("-s " + name + ": a script's name ends in .py (or give it as python:" + name + ")");
  if (::access(path.c_str(), R_OK) == 0) return path;
  // perf's find_script: a script of the scripts directory, by its name.
  const char* exec_path = std::getenv("PERF_EXEC_PATH");
  std::string shipped =
      (exec_path != nullptr && *exec_path ? std::string(exec_path) : output::python::script_exec_path()) +
      "/scripts/python/" + path;
  if (path.find('/') == std::string::npos && ::access(shipped.c_str(), R_OK) == 0) return shipped;
  return path;
}

}  // namespace sonde::pipeline
