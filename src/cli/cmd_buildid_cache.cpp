// sonde buildid-cache: manages the build-id cache (~/.debug, perf's layout) that report and
// script look up recorded binaries in. --add/--remove/--list/--purge as perf buildid-cache; --add
// also caches the file's SDT markers, which `list sdt`, `probe` and `record -e sdt_*` find there.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "pipeline/sdt_cache.hpp"
#include "symbols/buildid_cache.hpp"

namespace sonde::cli {

int cmd_buildid_cache(int argc, char** argv) {
  CLI::App app{"Manage the build-id cache", "sonde buildid-cache"};
  std::vector<std::string> add, remove, purge;
  std::string buildid_dir;
  bool list = false;
  app.add_option("-a,--add", add, "file(s) to add")->delimiter(',');
  app.add_option("-r,--remove", remove, "file(s) to remove")->delimiter(',');
  app.add_option("-p,--purge", purge, "file(s) to remove (remove old caches too)")->delimiter(',');
  app.add_flag("-l,--list", list, "list all cached files");
  app.add_option("--buildid-dir", buildid_dir, "the build-id cache directory (default ~/.debug)");
  if (auto exit_code = parse_command_line(app, argc, argv, "buildid-cache", AfterOptions::nothing))
    return *exit_code;
  std::string dir = symbols::buildid_cache_dir(buildid_dir);
  // As perf: a file that cannot be added or removed is reported and the others still go.
  for (const std::string& file : add) {
    if (auto added = symbols::buildid_cache_add(dir, file); !added) {
      report_error(added.error());
    } else if (auto markers = pipeline::cache_sdt_markers(dir, file); !markers) {
      report_error("buildid-cache", markers.error().with_context("reading its SDT markers"));
    }
  }
  for (const std::string& file : remove) {
    if (auto removed = symbols::buildid_cache_remove(dir, file); !removed) report_error(removed.error());
  }
  for (const std::string& file : purge) {
    if (auto purged = symbols::buildid_cache_purge(dir, file); !purged) report_error(purged.error());
  }
  if (list) {
    std::string out;
    for (const auto& entry : symbols::buildid_cache_list(dir))
      out += fmt::format("{} {}\n", entry.build_id, entry.path);
    std::fputs(out.c_str(), stdout);
  }
  return 0;
}

}  // namespace sonde::cli
