// sonde list [filter...]: the event catalogue in perf list's layout.
// Hidden developer option: --parse SPEC parses an -e argument and prints the resulting events,
// one per line, so that tests can check the parser through the binary.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "base/strings.hpp"
#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "events/listing.hpp"
#include "events/parse_events.hpp"
#include "output/list/event_list.hpp"
#include "pipeline/sdt_cache.hpp"
#include "symbols/buildid_cache.hpp"

namespace sonde::cli {

namespace {

int print_parsed(const std::vector<std::string>& specs) {
  std::vector<events::EventSpec> parsed;
  for (const auto& spec : specs) {
    if (auto result = events::parse_events(spec, parsed); !result) return report_error(result.error());
  }
  std::string text;
  for (size_t i = 0; i < parsed.size(); ++i) text += output::format_parsed_event(i, parsed[i]) + "\n";
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace

int cmd_list(int argc, char** argv) {
  CLI::App app{"List the events sonde can count and sample", "sonde list"};
  std::vector<std::string> filters;
  std::vector<std::string> parse_specs;
  app.add_option(
      "filter", filters,
      "hw, sw, cache, pmu, tracepoint, sdt, 'subsys NAME', a tracepoint glob such as 'sched:*', or a word");
  app.add_option("--parse", parse_specs, "Parse an -e event spec and print the events it gives")
      ->group("");  // a developer option: hidden from --help
  if (auto exit_code = parse_command_line(app, argc, argv, "list", AfterOptions::nothing)) return *exit_code;
  if (!parse_specs.empty()) return print_parsed(parse_specs);

  if (filters.empty()) filters.emplace_back();
  std::vector<events::ListedEvent> listed;
  for (size_t i = 0; i < filters.size(); ++i) {
    Result<std::vector<events::ListedEvent>> found;
    if (filters[i] == "sdt" || filters[i].starts_with("sdt_")) {
      // The SDT markers of the binaries in the build-id cache (buildid-cache --add).
      std::string pattern = filters[i] == "sdt" ? "*" : filters[i];
      std::vector<events::ListedEvent> markers;
      for (const auto& event : pipeline::cached_sdt_events(symbols::buildid_cache_dir()))
        if (glob_match(pattern, event.group + ":" + event.event))
          markers.push_back({event.group + ":" + event.event, events::EventKind::Sdt});
      markers.erase(std::unique(markers.begin(), markers.end(),
                                [](const auto& a, const auto& b) { return a.name == b.name; }),
                    markers.end());
      found = std::move(markers);
    } else if (filters[i] == "subsys") {
      if (i + 1 == filters.size())
        return report_usage_error("list", "'subsys' needs a subsystem name, as in 'sonde list subsys sched'");
      found = events::list_subsystem(filters[++i]);
    } else {
      found = events::list_events(filters[i]);
    }
    if (!found) return report_error("list", found.error());
    listed.insert(listed.end(), found->begin(), found->end());
  }
  output::print_event_list(stdout, listed);
  return 0;
}

}  // namespace sonde::cli
