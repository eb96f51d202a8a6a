#include "ftrace/listing.hpp"

#include <unistd.h>

#include <cerrno>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "ftrace/event_selection.hpp"
#include "ftrace/instance.hpp"
#include "ftrace/tracing_session.hpp"

namespace sonde::ftrace {

namespace {
bool matches(const std::string& glob, std::string_view text) {
  return glob.empty() || glob_match(glob, text);
}
}  // namespace

std::vector<std::string> list_tracers(const std::string& glob) {
  std::vector<std::string> tracers;
  auto top = Instance::top();
  if (!top) return tracers;
  for (auto& tracer : available_tracers(*top))
    if (matches(glob, tracer)) tracers.push_back(tracer);
  return tracers;
}

Result<std::vector<std::string>> list_events(const std::string& glob) {
  auto catalogue = read_event_catalogue();
  if (!catalogue) return tl::unexpected(catalogue.error());
  std::vector<std::string> names;
  bool whole_name = glob.find(':') != std::string::npos;
  for (const auto& [system, events] : catalogue->systems) {
    for (const auto& event : events) {
      std::string name = system + ":" + event;
      bool keep = glob.empty() ||
                  (whole_name ? glob_match(glob, name) : glob_match(glob, system) || glob_match(glob, event));
      if (keep) names.push_back(std::move(name));
    }
  }
  return names;
}

Result<std::vector<std::string>> list_functions(const std::string& glob) {
  auto top = Instance::top();
  if (!top) return tl::unexpected(top.error());
  std::string path = top->path("available_filter_functions");
  auto text = read_file(path);
  if (!text) {
    if (::access(path.c_str(), F_OK) != 0)
      return fail(
          "this kernel has no function tracer (CONFIG_FUNCTION_TRACER): no available_filter_functions");
    return failf("available_filter_functions refused by the kernel (lockdown?): {}", text.error().message);
  }
  std::string module;
  std::string pattern = glob;
  if (glob.starts_with(":mod:")) {
    module = "[" + glob.substr(5) + "]";
    pattern.clear();
  }
  std::vector<std::string> functions;
  for (auto& line : split(*text, '\n')) {
    if (line.empty()) continue;
    if (!module.empty() && line.find(module) == std::string::npos) continue;
    std::string_view name = std::string_view(line).substr(0, line.find(' '));
    if (matches(pattern, name)) functions.push_back(std::move(line));
  }
  return functions;
}

Result<std::vector<std::string>> list_options(const std::string& glob) {
  auto top = Instance::top();
  if (!top) return tl::unexpected(top.error());
  auto text = top->read("trace_options");
  if (!text) return tl::unexpected(text.error());
  std::vector<std::string> options;
  for (auto& line : split(*text, '\n')) {
    std::string_view name = line;
    if (name.starts_with("no")) name.remove_prefix(2);
    if (!line.empty() && (matches(glob, line) || matches(glob, name))) options.push_back(std::move(line));
  }
  return options;
}

}  // namespace sonde::ftrace
