// sonde data convert: perf data's one subcommand, `convert -i FILE --to-json OUT [-f]` or
// `--to-ctf DIR [--all] [--tod]` with perf 6.1's options and
// its two summary lines on stderr, plus sonde's --to-pprof, --to-speedscope, --to-chrome and --to-firefox.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "pipeline/data_convert.hpp"

namespace sonde::cli {

namespace {

constexpr std::string_view kUsage =
    "\n usage: sonde data convert [<options>]\n\n"
    " The sonde data commands are:\n"
    "   convert   a perf.data file in another tool's format (--to-json, --to-pprof, --to-speedscope "
    "FILE)\n\n";

int data_convert(int argc, char** argv) {
  CLI::App app{"Convert a perf.data file to another format", "sonde data convert"};
  pipeline::DataConvertOptions options;
  bool verbose = false;
  app.add_option("-i,--input", options.input, "input file name");
  app.add_option("--to-json", options.json_path, "Convert to JSON format");
  app.add_option("--to-ctf", options.ctf_directory, "Convert to CTF format");
  app.add_option("--to-pprof", options.pprof_path,
                 "Convert to pprof's profile.proto, gzip-compressed (.pb.gz)");
  app.add_option("--to-speedscope", options.speedscope_path, "Convert to speedscope's JSON file format");
  app.add_option("--to-chrome", options.chrome_path,
                 "Convert to the Chrome trace event format (Perfetto UI, chrome://tracing)");
  app.add_option("--to-firefox", options.firefox_path,
                 "Convert to the Gecko profile format (the Firefox Profiler, as perf script report gecko)");
  app.add_flag("-f,--force", options.force, "don't complain, do it");
  app.add_flag("-v,--verbose", verbose, "be more verbose");
  app.add_flag("--all", options.all, "Convert all events");
  app.add_flag("--tod", options.tod, "Convert time to wall clock time");
  if (auto exit_code = parse_command_line(app, argc, argv, "data convert", AfterOptions::nothing))
    return *exit_code;
  int outputs = !options.json_path.empty() + !options.ctf_directory.empty() + !options.pprof_path.empty() +
                !options.speedscope_path.empty() + !options.chrome_path.empty() +
                !options.firefox_path.empty();
  if (outputs == 0)
    return report_usage_error(
        "data convert",
        "name an output: --to-json, --to-pprof, --to-speedscope, --to-chrome or --to-firefox FILE, or "
        "--to-ctf DIR");
  if (outputs > 1) return report_usage_error("data convert", "name one output format a run; convert twice");

  if ((options.all || options.tod) && options.ctf_directory.empty())
    return report_usage_error("data convert", fmt::format("{} is supported for CTF output only (as in perf)",
                                                          options.all ? "--all" : "--tod"));
  Diagnostics diagnostics([](const Diagnostics::Message& message) {
    fmt::print(stderr, "{}{}\n",
               message.kind == Diagnostics::Kind::warning ? "sonde data convert: warning: " : "",
               message.text);
  });
  Result<pipeline::DataConvertSummary> summary;
  std::string_view format;
  const std::string* output = nullptr;
  if (!options.json_path.empty()) {
    summary = pipeline::convert_to_json(options, diagnostics);
    format = "JSON";
    output = &options.json_path;
  } else if (!options.ctf_directory.empty()) {
    summary = pipeline::convert_to_ctf(options, diagnostics);
    format = "CTF";
    output = &options.ctf_directory;
  } else if (!options.chrome_path.empty()) {
    summary = pipeline::convert_to_chrome(options, diagnostics);
    format = "Chrome trace";
    output = &options.chrome_path;
  } else if (!options.firefox_path.empty()) {
    summary = pipeline::convert_to_firefox(options, diagnostics);
    format = "Firefox profile";
    output = &options.firefox_path;
  } else if (!options.pprof_path.empty()) {
    summary = pipeline::convert_to_pprof(options, diagnostics);
    format = "pprof";
    output = &options.pprof_path;
  } else {
    summary = pipeline::convert_to_speedscope(options, diagnostics);
    format = "speedscope";
    output = &options.speedscope_path;
  }
  if (!summary) return report_error("data convert", summary.error());
  fmt::print(stderr, "[ sonde data convert: Converted '{}' into {} data '{}' ]\n", options.input, format,
             *output);
  std::string non_samples =
      summary->non_samples > 0 ? fmt::format(", {} non-samples", summary->non_samples) : std::string();
  fmt::print(stderr, "[ sonde data convert: Converted and wrote {:.3f} MB ({} samples{}) ]\n",
             static_cast<double>(summary->bytes) / 1024.0 / 1024.0, summary->samples, non_samples);
  return 0;
}

}  // namespace

int cmd_data(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "{}", kUsage);
    return 129;
  }
  std::string_view sub = argv[1];
  if (sub == "-h" || sub == "--help") {
    fmt::print("{}", kUsage);
    return 0;
  }
  if (sub == "convert") return data_convert(argc - 1, argv + 1);
  return report_usage_error("data", fmt::format("unknown subcommand '{}' (known: convert)", sub));
}

}  // namespace sonde::cli
