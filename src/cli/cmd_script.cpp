// sonde script: perf script's options, wired from the session through symbols to script lines.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>

#include "analysis/script/script_filter.hpp"
#include "base/progress.hpp"
#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "kernel/cpus.hpp"
#include "output/perf_header.hpp"
#include "output/script/raw_dump.hpp"
#include "output/script/script_printer.hpp"
#include "output/script/script_symbols.hpp"
#include "session/session.hpp"
#include "unwind/dwarf_unwinder.hpp"

namespace sonde::cli {

namespace {

struct ScriptCliOptions {
  std::string input = "perf.data";
  std::vector<std::string> field_specs;
  std::string time, cpus, comms, pids, tids;
  std::string symfs, vmlinux, kallsyms;
  bool nanoseconds = false, hide_call_graph = false, inline_frames = true, no_demangle = false;
  bool header = false, header_only = false, dump_raw = false;
  unsigned max_stack = 127;
  bool show_task = false, show_mmap = false, show_switch = false, show_lost = false;
};

// perf's default --max-stack: the kernel's kernel.perf_event_max_stack.
unsigned kernel_max_stack() {
  std::FILE* file = std::fopen("/proc/sys/kernel/perf_event_max_stack", "r");
  unsigned value = 127;
  if (file != nullptr) {
    if (std::fscanf(file, "%u", &value) != 1) value = 127;
    std::fclose(file);
  }
  return value;
}

Result<void> build_filter(const ScriptCliOptions& cli, analysis::ScriptFilter& filter) {
  if (!cli.time.empty()) {
    auto ranges = analysis::parse_time_ranges(cli.time);
    if (!ranges) return tl::unexpected(Error{"sonde script: --time: " + ranges.error().message, Error::Kind::usage});
    filter.times = *ranges;
  }
  if (!cli.cpus.empty()) {
    auto cpus = kernel::parse_cpu_list(cli.cpus);
    if (!cpus) return tl::unexpected(Error{"sonde script: -C: " + cpus.error().message, Error::Kind::usage});
    for (int cpu : *cpus) {
      if (cpu < 0) continue;
      if (filter.cpus.size() <= static_cast<size_t>(cpu)) filter.cpus.resize(static_cast<size_t>(cpu) + 1);
      filter.cpus[static_cast<size_t>(cpu)] = true;
    }
  }
  filter.comms = analysis::split_list(cli.comms);
  auto pids = analysis::parse_id_list(cli.pids, "--pid");
  if (!pids) return tl::unexpected(Error{"sonde script: " + pids.error().message, Error::Kind::usage});
  filter.pids = *pids;
  auto tids = analysis::parse_id_list(cli.tids, "--tid");
  if (!tids) return tl::unexpected(Error{"sonde script: " + tids.error().message, Error::Kind::usage});
  filter.tids = *tids;
  return {};
}

}  // namespace

int cmd_script(int argc, char** argv) {
  ScriptCliOptions cli;
  cli.max_stack = kernel_max_stack();
  CLI::App app{"Print every event of a perf.data file (perf script)", "sonde script"};
  app.add_option("-i,--input", cli.input, "input file name ('-' reads a pipe)");
  app.add_option("-F,--fields", cli.field_specs,
                 "fields to print: comm,tid,pid,time,cpu,event,trace,ip,sym,symoff,dso,srcline,period,addr,"
                 "flags,...; +field/-field change the defaults; hw:/sw:/trace: limit to one kind");
  app.add_flag("--header", cli.header, "print the file's header before the events");
  app.add_flag("--header-only", cli.header_only, "print the file's header only");
  app.add_flag("-D,--dump-raw-trace", cli.dump_raw, "dump every record in hex and as perf reads it, among the script's lines");
  app.add_flag("--ns", cli.nanoseconds, "show times in nanoseconds");
  app.add_option("--time", cli.time, "only samples in this time range: start,stop (seconds)");
  app.add_option("-C,--cpu", cli.cpus, "only events on these CPUs (a list such as 0-2,4)");
  app.add_option("--comm", cli.comms, "only samples of these comms (comma separated)");
  app.add_option("--pid", cli.pids, "only samples of these process ids");
  app.add_option("--tid", cli.tids, "only samples of these thread ids");
  app.add_option("--symfs", cli.symfs, "look for files relative to this directory");
  app.add_option("-k,--vmlinux", cli.vmlinux, "vmlinux file for kernel symbols");
  app.add_option("--kallsyms", cli.kallsyms, "kallsyms file for kernel symbols");
  app.add_flag("--inline,!--no-inline", cli.inline_frames,
               "show inlined functions in DWARF-unwound callchains (the default, as in perf 6.1)");
  app.add_flag("--no-demangle", cli.no_demangle, "do not demangle symbol names");
  app.add_option("--max-stack", cli.max_stack, "print at most this many callchain entries");
  app.add_flag("-G,--hide-call-graph", cli.hide_call_graph, "do not print callchains");
  app.add_flag("--show-task-events", cli.show_task, "show COMM, FORK and EXIT records");
  app.add_flag("--show-mmap-events", cli.show_mmap, "show MMAP and MMAP2 records");
  app.add_flag("--show-switch-events", cli.show_switch, "show context switch records");
  app.add_flag("--show-lost-events", cli.show_lost, "show LOST records");
  if (auto exit_code = parse_command_line(app, argc, argv, "script")) return *exit_code;
  auto rest = command_after_options(app, "script");
  if (!rest) return report_error(rest.error());
  if (!rest->empty())
    return report_error({fmt::format("sonde script: unexpected argument '{}'; see 'sonde script --help'", rest->front()), Error::Kind::usage});

  output::ScriptOptions options;
  std::vector<std::string> warnings;
  for (const std::string& spec : cli.field_specs) {
    if (auto applied = output::apply_field_spec(options.fields, spec, warnings); !applied)
      return report_error(applied.error());
  }
  for (const std::string& warning : warnings) fmt::print(stderr, "{}\n", warning);
  if (auto built = build_filter(cli, options.filter); !built) return report_error(built.error());
  options.nanoseconds = cli.nanoseconds;
  options.use_callchain = !cli.hide_call_graph;
  options.max_stack = cli.max_stack;
  options.inline_frames = cli.inline_frames;
  options.show_task_events = cli.show_task;
  options.show_mmap_events = cli.show_mmap;
  options.show_switch_events = cli.show_switch;
  options.show_lost_events = cli.show_lost;

  Diagnostics file_warnings(
      [](const Diagnostics::Message& warning) { fmt::print(stderr, "sonde script: {}\n", warning.text); });
  auto session = session::Session::open(cli.input, file_warnings);
  if (!session) return report_error(session.error().with_context("sonde script"));
  // Its lines stream to stdout: progress only when they go elsewhere.
  if (!stdout_is_terminal()) session->show_progress("sonde script: reading " + cli.input);
  output::ScriptOutput out(stdout);
  if (cli.header || cli.header_only) {
    output::append_header_info(session->reader(), cli.input, out.buffer());
    if (cli.header_only) return 0;
  }
  if (!options.filter.cpus.empty() && !session->reader().is_pipe()) {
    bool any_cpu = false;
    for (const auto& event : session->reader().attrs().events()) any_cpu |= (event.attr.sample_type & PERF_SAMPLE_CPU) != 0;
    if (!any_cpu)
      return report_error({"sonde script: the file's events carry no CPU; record with -a or -C to filter by CPU"});
  }

  output::ScriptSymbolOptions symbol_options;
  symbol_options.symfs = cli.symfs;
  symbol_options.vmlinux = cli.vmlinux;
  symbol_options.kallsyms = cli.kallsyms;
  symbol_options.demangle = !cli.no_demangle;
  symbol_options.inline_frames = cli.inline_frames;
  output::ScriptSymbols symbols(symbol_options);
  // --call-graph dwarf samples: their user frames, unwound from the saved stack.
  unwind::DwarfUnwinder unwinder([&symbols](const session::Dso& dso) { return symbols.elf_path(dso); },
                                 options.max_stack);
  session->set_unwinder(&unwinder);
  analysis::ScriptFilter filter = options.filter;
  bool script_shows_lost = options.show_lost_events;
  output::ScriptPrinter printer(std::move(options), *session, symbols, out);
  if (auto prepared = printer.prepare(); !prepared) return report_error(prepared.error());
  output::RawDumpPrinter dump(*session, output::raw_dump_file_label(cli.input, session->reader().is_pipe()), filter,
                              script_shows_lost, out, printer);
  session::SessionVisitor& visitor = cli.dump_raw ? static_cast<session::SessionVisitor&>(dump) : printer;
  auto processed = session->process(visitor);
  out.flush();
  // The printer's errors (it stops the replay) name the command already; the reader's do not.
  if (!processed && processed.error().message.starts_with("sonde script: "))
    return report_error(processed.error());
  if (!processed) return report_error(processed.error().with_context("sonde script"));
  return 0;
}

}  // namespace sonde::cli
