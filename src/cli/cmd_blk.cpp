// sonde blk: blktrace (record), blkparse (parse) and btrace (trace) with their options, through
// pipeline/blk_run over the kernel's blk tracer.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "cli/event_options.hpp"
#include "pipeline/blk_run.hpp"

namespace sonde::cli {

namespace {

constexpr std::string_view kBlkUsage =
    "usage: sonde blk {record|parse|trace} [<options>]\n"
    "  record -d DEV [-o NAME] [-D DIR] [-w SECS] [-- COMMAND]  trace block devices into NAME.blktrace.CPU "
    "(blktrace)\n"
    "  parse [-i NAME] [-D DIR] [-o FILE] [-q]                 print those files as blkparse does\n"
    "  trace DEV... [-w SECS] [-- COMMAND]                     print the I/O as it happens (btrace)\n";

void add_tracing_options(CLI::App& app, pipeline::BlkRecordOptions& options) {
  app.add_option("-d,--dev", options.devices, "block device to trace (loop0, /dev/sda); may be repeated");
  app.add_option("-w,--stopwatch", options.seconds, "stop after this many seconds")
      ->check(CLI::PositiveNumber);
  app.add_option("-b,--buffer-size", options.buffer_kb, "per-CPU buffer size in KiB");
}

int blk_record_command(int argc, char** argv) {
  pipeline::BlkRecordOptions options;
  CLI::App app{"Trace block devices into blktrace's files (blktrace)", "sonde blk record"};
  add_tracing_options(app, options);
  app.add_option("-o,--output", options.output, "the files' name: NAME.blktrace.CPU (default: the device's)");
  app.add_option("-D,--output-dir", options.directory, "directory for the files");
  if (auto exit_code = parse_command_line(app, argc, argv, "blk record")) return *exit_code;
  auto command = command_after_options(app, "blk record");
  if (!command) return report_error(command.error());
  options.command = *command;
  Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde blk record: ");
  auto outcome = pipeline::blk_record(options, diagnostics);
  if (!outcome) return report_error("blk record", outcome.error());
  fmt::print(stderr, "sonde blk record: {} traces in {} files ({} ... {}); lost {} events\n", outcome->traces,
             outcome->files.size(), outcome->files.empty() ? "" : outcome->files.front(),
             outcome->files.empty() ? "" : outcome->files.back(), outcome->lost);
  return outcome->workload_status;
}

int blk_parse_command(int argc, char** argv) {
  pipeline::BlkParseOptions options;
  std::string output;
  std::vector<std::string> names;
  CLI::App app{"Print blktrace's files as blkparse does", "sonde blk parse"};
  app.add_option("-i,--input", options.inputs, "NAME of NAME.blktrace.CPU; may be repeated");
  app.add_option("names", names, "more NAMEs");
  app.add_option("-D,--input-directory", options.directory, "directory of the files");
  app.add_option("-o,--output", output, "write the text to this file");
  app.add_flag("-q,--quiet", options.quiet, "the lines without the summary");
  if (auto exit_code = parse_command_line(app, argc, argv, "blk parse", AfterOptions::nothing))
    return *exit_code;
  options.inputs.insert(options.inputs.end(), names.begin(), names.end());
  if (options.inputs.empty())
    return report_usage_error("blk parse", "no input; name the files with -i NAME (NAME.blktrace.CPU)");
  std::FILE* out = stdout;
  if (!output.empty() && !(out = std::fopen(output.c_str(), "w")))
    return report_error("blk parse", Error{fmt::format("cannot write {}: {}", output, errno_text(errno))});
  Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde blk parse: ");
  auto done = pipeline::blkparse_files(options, out, diagnostics);
  if (out != stdout) std::fclose(out);
  if (!done) return report_error("blk parse", done.error());
  return 0;
}

int blk_trace_command(int argc, char** argv) {
  pipeline::BlkRecordOptions options;
  std::vector<std::string> devices;
  CLI::App app{"Print block I/O as it happens (btrace)", "sonde blk trace"};
  add_tracing_options(app, options);
  app.add_option("devices", devices, "block devices to trace");
  // The devices are positional, so the command is split off at "--" before CLI11 sees it.
  int options_end = 1;
  while (options_end < argc && std::string_view(argv[options_end]) != "--") ++options_end;
  for (int i = options_end + 1; i < argc; ++i) options.command.emplace_back(argv[i]);
  if (auto exit_code = parse_command_line(app, options_end, argv, "blk trace", AfterOptions::nothing))
    return *exit_code;
  options.devices.insert(options.devices.end(), devices.begin(), devices.end());
  Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde blk trace: ");
  auto status = pipeline::blk_live(options, stdout, diagnostics);
  if (!status) return report_error("blk trace", status.error());
  return *status;
}

}  // namespace

int cmd_blk(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "{}", kBlkUsage);
    return 129;
  }
  std::string_view sub = argv[1];
  if (sub == "-h" || sub == "--help") {
    fmt::print("{}", kBlkUsage);
    return 0;
  }
  if (sub == "record") return blk_record_command(argc - 1, argv + 1);
  if (sub == "parse") return blk_parse_command(argc - 1, argv + 1);
  if (sub == "trace") return blk_trace_command(argc - 1, argv + 1);
  return report_usage_error("blk", fmt::format("unknown subcommand '{}'; give record, parse or trace", sub));
}

}  // namespace sonde::cli
