// sonde annotate: perf annotate --stdio's options, wired to the annotate pipeline.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>

#include "base/strings.hpp"
#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "perfdata/reader.hpp"
#include "pipeline/annotate_run.hpp"

namespace sonde::cli {

namespace {

std::optional<output::PercentType> parse_percent_type(const std::string& text) {
  if (text == "local-period") return output::PercentType::local_period;
  if (text == "local-hits") return output::PercentType::local_hits;
  if (text == "global-period") return output::PercentType::global_period;
  if (text == "global-hits") return output::PercentType::global_hits;
  return std::nullopt;
}

}  // namespace

int cmd_annotate(int argc, char** argv) {
  pipeline::AnnotateOptions options;
  std::vector<std::string> positional;
  std::string symbol, dsos, percent_type = "local-period", style, vmlinux;
  bool stdio = false, stdio2 = false, tui = false, asm_raw = false, no_source = false, source = false;
  bool samples = false, total_period = false, skip_missing = false, verbose = false, quiet = false;
  CLI::App app{"Read perf.data and show each sampled symbol's code with its samples (perf annotate --stdio)",
               "sonde annotate"};
  app.add_option("symbol", positional, "only annotate this symbol");
  app.add_option("-i,--input", options.input, "input file name (default perf.data; - for a pipe)");
  app.add_option("-s,--symbol", symbol, "only annotate this symbol");
  app.add_option("-d,--dsos", dsos, "only consider symbols in these DSOs (comma separated)");
  app.add_flag("--stdio", stdio, "text output (the default)");
  app.add_flag("--stdio2", stdio2, "perf's second text layout (not available yet)");
  app.add_flag("--tui", tui, "the terminal browser (not available yet)");
  app.add_flag("-l,--print-line", options.layout.print_line,
               "a sorted summary of the hot source lines, and each hot instruction's line");
  app.add_flag("-P,--full-paths", options.full_paths, "full paths of DSOs and source files");
  app.add_flag("--source", source, "interleave source code with the disassembly (default)");
  app.add_flag("--no-source", no_source, "disassembly with file:line markers only, no source text");
  app.add_flag("--asm-raw", asm_raw, "show the instructions' raw bytes, as objdump prints them");
  app.add_option("-M,--disassembler-style", style,
                 "att (the default) or intel, spelled as objdump spells them");
  app.add_option("--percent-type", percent_type,
                 "local-period (default), local-hits, global-period, global-hits");
  app.add_option("--percent-limit", options.percent_limit,
                 "leave out symbols below this percent of their event");
  app.add_flag("-n,--show-nr-samples", samples, "a column of sample counts instead of percents");
  app.add_flag("--show-total-period", total_period, "a column of periods instead of percents");
  app.add_option("-k,--vmlinux", vmlinux, "vmlinux pathname (kernel code needs one)");
  app.add_option("--kallsyms", options.symbolizer.kallsyms, "kallsyms pathname");
  app.add_option("--symfs", options.symbolizer.symfs,
                 "look for files with symbols relative to this directory");
  app.add_flag("--skip-missing", skip_missing,
               "skip symbols whose code cannot be found (sonde always does, with a warning)");
  app.add_flag("--demangle,!--no-demangle", options.symbolizer.demangle,
               "demangle C++ and Rust symbol names (default on)");
  app.add_flag("-v,--verbose", verbose, "be more verbose");
  app.add_flag("-q,--quiet", quiet, "no warnings");
  if (auto exit_code = parse_command_line(app, argc, argv, "annotate", AfterOptions::nothing))
    return *exit_code;
  if (app.count("--kallsyms") == 0 && vmlinux.empty())
    if (auto recorded = perfdata::recording_kallsyms(options.input); !recorded.empty())
      options.symbolizer.kallsyms = recorded;
  if (tui) return report_usage_error("annotate", "there is no TUI yet; output is --stdio text");
  if (stdio2) return report_usage_error("annotate", "--stdio2 is not available yet; use --stdio");
  if (source && no_source)
    return report_usage_error("annotate", "--source and --no-source contradict each other");
  if (samples && total_period)
    return report_usage_error("annotate",
                              "-n and --show-total-period contradict each other: pick one column");
  if (!style.empty() && style != "att" && style != "intel")
    return report_usage_error("annotate", "-M '" + style + "': use att (the default) or intel");
  auto type = parse_percent_type(percent_type);
  if (!type)
    return report_usage_error(
        "annotate",
        "--percent-type '" + percent_type + "': use local-period, local-hits, global-period or global-hits");
  options.layout.percent_type = *type;
  options.layout.column = samples        ? output::AnnotateColumn::samples
                          : total_period ? output::AnnotateColumn::period
                                         : output::AnnotateColumn::percent;
  options.style.source = !no_source;
  options.style.raw_bytes = asm_raw;
  options.style.intel = style == "intel";
  options.symbolizer.vmlinux = vmlinux;
  if (positional.size() > 1) return report_usage_error("annotate", "give at most one symbol");
  options.symbols = positional;
  if (!symbol.empty()) options.symbols.push_back(symbol);
  if (!dsos.empty())
    for (std::string_view dso : split(dsos, ',')) options.dsos.emplace_back(trim(dso));
  Diagnostics diagnostics = quiet ? Diagnostics() : Diagnostics::printing_to(stderr);
  auto done = pipeline::annotate(stdout, options, diagnostics);
  std::fflush(stdout);
  if (!done) return report_error("annotate", done.error());
  return 0;
}

}  // namespace sonde::cli
