// sonde archive [FILE]: perf archive's tarball of what a recording needs to report elsewhere;
// pipeline/archive_run packs it.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "pipeline/archive_run.hpp"

namespace sonde::cli {

int cmd_archive(int argc, char** argv) {
  CLI::App app{"Pack the files a perf.data file's samples need, to report on another machine",
               "sonde archive"};
  std::string input = "perf.data", output;
  app.add_option("file", input, "the recording (default perf.data)");
  app.add_option("-o,--output", output, "the tarball (default FILE.tar.bz2)");
  if (auto exit_code = parse_command_line(app, argc, argv, "archive", AfterOptions::nothing))
    return *exit_code;
  auto written = pipeline::write_archive(input, output);
  if (!written) return report_error("archive", written.error());
  for (const std::string& missing : written->missing)
    fmt::print(stderr, "sonde archive: left out {}: no file with that build-id here\n", missing);
  fmt::print(
      "Now please run:\n\n$ mkdir DIR && tar xvf {} -C DIR\n\nwherever you need to run 'sonde report --symfs "
      "DIR{}' "
      "on.\n",
      written->output, written->kallsyms ? " --kallsyms DIR/kallsyms" : "");
  return 0;
}

}  // namespace sonde::cli
