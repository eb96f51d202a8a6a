#include "pipeline/python_script.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "output/python/python_script_sink.hpp"

namespace sonde::pipeline {

namespace {

std::string scripts_directory() {
  const char* exec_path = std::getenv("PERF_EXEC_PATH");
  return (exec_path != nullptr && *exec_path ? std::string(exec_path) : output::python::script_exec_path()) +
         "/scripts";
}

constexpr std::string_view kReportSuffix = "-report";

}  // namespace

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
  std::string shipped = scripts_directory() + "/python/" + path;
  if (path.find('/') == std::string::npos && ::access(shipped.c_str(), R_OK) == 0) return shipped;
  return path;
}

std::optional<std::string> shipped_python_script(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return std::nullopt;
  const std::string directory = scripts_directory() + "/python";
  if (!path_exists(directory + "/bin/" + name + std::string(kReportSuffix))) return std::nullopt;
  std::string script = directory + "/" + name + ".py";
  if (!path_exists(script)) return std::nullopt;
  return script;
}

Result<std::string> python_script_listing() {
  const std::string bin = scripts_directory() + "/python/bin";
  DIR* directory = ::opendir(bin.c_str());
  if (directory == nullptr)
    return fail_errno(errno, fmt::format("cannot list the scripts in {} (set PERF_EXEC_PATH to a scripts "
                                         "directory's parent)",
                                         bin));
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(directory)) {
    std::string_view file = entry->d_name;
    if (file.size() > kReportSuffix.size() && file.ends_with(kReportSuffix)) names.emplace_back(file);
  }
  ::closedir(directory);
  std::sort(names.begin(), names.end());
  std::string text = "List of available trace scripts:\n";
  for (const std::string& file : names) {
    std::string description, args;
    if (auto content = read_file(bin + "/" + file)) {
      for (const std::string& whole : split(*content, '\n')) {
        std::string_view line = whole;
        if (!line.starts_with('#') || line.starts_with("#!")) continue;
        line = trim(line.substr(1));
        if (line.starts_with("description:")) description = trim(line.substr(12));
        if (line.starts_with("args:")) args = trim(line.substr(5));
      }
    }
    std::string name = file.substr(0, file.size() - kReportSuffix.size());
    text += fmt::format("  {:<36} {}\n", name + " " + args, description);
  }
  return text;
}

}  // namespace sonde::pipeline
