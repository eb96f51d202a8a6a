// sonde report: perf report --stdio's options, wired from the session through the histogram
// and call-graph builders to the report printer.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string_view>

#include "analysis/report/group_hist.hpp"
#include "analysis/report/record_stats.hpp"
#include "analysis/report/report_options.hpp"
#include "analysis/report/report_run.hpp"
#include "analysis/report/task_tree.hpp"
#include "analysis/stacks/collapse_file.hpp"
#include "base/strings.hpp"
#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "kernel/cpus.hpp"
#include "output/browser/hist_browser.hpp"
#include "output/report/record_stats_text.hpp"
#include "output/report/report_output.hpp"
#include "output/report/task_tree_text.hpp"
#include "output/report/thread_counts_text.hpp"
#include "perfdata/reader.hpp"
#include "pipeline/html_report.hpp"
#include "pipeline/report_browser.hpp"
#include "pipeline/script_run.hpp"

namespace sonde::cli {

namespace {

// -g folded: the whole file folded as `sonde collapse FILE` folds it, not perf's per-entry layout.
int print_collapsed_stacks(const analysis::ReportRequest& request) {
  if (request.filters.any())
    return report_usage_error("report",
                              "-g folded folds the whole file as sonde collapse does; --comm, --pid, --tid, "
                              "-d and -S filter -g folded-perf (perf's per-entry layout)");
  Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde report: ");
  auto folded =
      analysis::collapse_perf_data(request.input, {}, analysis::symbolizer_options(request), {}, diagnostics);
  if (!folded) return report_error("report", folded.error());
  std::fwrite(folded->data(), 1, folded->size(), stdout);
  std::fflush(stdout);
  return 0;
}

// --html: the page replaces the text; its views filter interactively, so the text's filters are
// refused rather than silently applied to one view.
int write_html(const analysis::ReportRequest& request, const std::string& path,
               const std::string& diff_base) {
  if (request.filters.any())
    return report_usage_error("report",
                              "--html filters in the page (search, zoom, event); drop --comm, --pid, "
                              "--tid, -d and -S");
  pipeline::HtmlReportOptions options;
  options.input = request.input;
  options.output = path;
  options.diff_base = diff_base;
  options.symbols = {request.symfs, request.kallsyms, request.vmlinux, request.demangle, false};
  Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde report: ");
  auto written = pipeline::write_html_report(options, diagnostics);
  if (!written) return report_error("report", written.error());
  fmt::print(stderr, "[ sonde report: wrote '{}' ({:.3f} MB, {} samples): open it in a browser ]\n", path,
             static_cast<double>(written->bytes) / 1024.0 / 1024.0, written->samples);
  return 0;
}

}  // namespace

int cmd_report(int argc, char** argv) {
  analysis::ReportRequest request;
  std::optional<std::string> sort;  // perf's default: trace for tracepoint-only files, else comm,dso,sym
  std::string call_graph;
  bool children = false, no_children = false, tui = false, inverted = false;
  bool stdio = false;
  std::optional<std::string> comms, dsos, symbols, pids, tids;
  std::string html, diff_base;
  CLI::App app{"Read perf.data and display the profile (perf report --stdio)", "sonde report"};
  app.add_option("-i,--input", request.input, "input file name (default perf.data; - for a pipe)");
  app.add_option("-s,--sort", sort, "sort by keys: comm, pid, dso, sym, srcline, parent, cpu, trace");
  app.add_flag("-n,--show-nr-samples", request.layout.show_samples,
               "show a column with the number of samples");
  app.add_flag("--show-total-period", request.layout.show_period, "show a column with the sum of periods");
  app.add_flag("--children", children, "accumulate callchains of children into the parent entries");
  app.add_flag("--no-children", no_children, "do not accumulate callchains of children");
  app.add_option(
      "-g,--call-graph", call_graph,
      "graph|flat|fractal|folded|folded-perf|none,min_percent,caller|callee,function|address,percent|period|"
      "count; folded prints sonde collapse's (stackcollapse-perf.pl's) lines, folded-perf perf's per-entry "
      "folded layout");
  app.add_flag("-G,--inverted", inverted, "caller-based call graph (same as -g caller)");
  app.add_option("--max-stack", request.options.max_stack, "callchain entries to use at most (default 127)");
  app.add_option("--percent-limit", request.percent_limit,
                 "hide entries (and call-graph parts) below this percent");
  app.add_option("-c,--comms,--comm", comms, "only consider samples of these comms (comma separated)");
  app.add_option("-d,--dsos,--dso", dsos, "only consider symbols in these DSOs");
  app.add_option("-S,--symbols", symbols, "only consider these symbols");
  app.add_option("--pid", pids, "only consider samples of these process ids");
  app.add_option("--tid", tids, "only consider samples of these thread ids");
  app.add_option("-p,--parent", request.options.parent_pattern, "regex for the parent sort key");
  std::string cpus, percentage = "absolute";
  app.add_option("-C,--cpu", cpus,
                 "only samples on these CPUs (0-3,5); the others are left out of every total");
  app.add_option("--socket-filter", request.filters.socket, "only samples on this processor socket's CPUs");
  app.add_option("--symbol-filter", request.filters.symbol_filter,
                 "only entries whose symbol name contains this");
  app.add_flag("-U,--hide-unresolved", request.options.hide_unresolved,
               "only entries with a resolved symbol");
  app.add_flag("-x,--exclude-other", request.filters.exclude_other,
               "with -p: only entries with a parent match");
  app.add_option("--percentage", percentage,
                 "absolute (of every sample, the default) or relative (of what the filters show)");
  app.add_option("-t,--field-separator", request.field_separator, "separate the columns with this");
  app.add_option("--time", request.time,
                 "only samples in start,stop (seconds), or in percent slices of the recording: 10%/2, "
                 "10%/1,10%/3, 0%-10%, 0%-10%,50%-60%");
  auto& views = request.data_views;
  app.add_flag("-b,--branch-stack", views.branch_stack,
               "branch stacks as the entries (needs a -b recording)");
  app.add_flag("--branch-history", views.branch_history,
               "branch history in call graphs (with branch stacks)");
  app.add_flag("--total-cycles", views.total_cycles, "blocks by sampled cycles (with branch stacks)");
  app.add_flag("--mem-mode", views.mem_mode, "memory accesses as the entries (needs a -d recording)");
  app.add_flag("--stitch-lbr", views.stitch_lbr, "stitch LBR call stacks (with --call-graph lbr recordings)");
  std::optional<std::string> itrace;
  app.add_option("--itrace", itrace, "decode AUX area traces (Intel PT and the like)")->expected(0, 1);
  app.add_flag("--header", request.header, "show the perf.data header before the profile");
  app.add_flag("--header-only", request.header_only, "show only the perf.data header");
  bool stats = false, skip_empty = true, tasks = false, mmaps = false;
  app.add_flag("--tasks", tasks,
               "list the file's threads, each under the one that forked it, and nothing else");
  app.add_flag("--mmaps", mmaps, "--tasks with each thread's memory maps");
  app.add_flag("--stats", stats,
               "count the file's records by type and each event's samples, and nothing else");
  app.add_flag("--skip-empty,!--no-skip-empty", skip_empty,
               "leave out record types and events with nothing counted (the default)");
  app.add_flag("-I,--show-info", request.show_info,
               "with --header: the CPU and NUMA topology, caches and memory nodes in full");
  app.add_flag("--wall", request.wall,
               "a 'record --off-cpu' file's on- and off-CPU time as one event, wall-clock; off-CPU stacks "
               "topped by their state ([S sleeping], [D uninterruptible], [R preempted])");
  app.add_option(
      "--html", html,
      "write a self-contained HTML report to FILE: call trees, flame graph, timeline (no server needed)");
  app.add_option("--diff", diff_base, "with --html: the differential views against this baseline perf.data");
  app.add_flag("--stdio", stdio, "text output (the default when standard output is not a terminal)");
  app.add_flag("--tui", tui, "the terminal browser (the default on a terminal)");
  app.add_flag("-v,--verbose", request.verbose, "say what could not be resolved");
  app.add_option("--symfs", request.symfs, "look for files with symbols relative to this directory");
  app.add_option("--kallsyms", request.kallsyms, "kallsyms pathname");
  app.add_option("-k,--vmlinux", request.vmlinux, "vmlinux pathname");
  bool force = false;
  app.add_flag("-f,--force", force, "accepted for perf compatibility: sonde reads files whoever owns them");
  app.add_flag("--demangle,!--no-demangle", request.demangle,
               "demangle C++ and Rust symbol names (default on)");
  app.add_flag("-q,--quiet", request.quiet, "no header comments");
  app.add_flag("-T,--threads", request.show_threads,
               "after the profile, each thread's counts (from a 'record -s' file's READ records)");
  app.add_flag("--show-cpu-utilization", request.layout.show_cpu_utilization,
               "the share of each entry sampled in the kernel (sys) and in user space (usr)");
  std::string column_widths;
  app.add_option("--column-widths", column_widths,
                 "the columns' widths, in order (w[,w...]; 0 keeps one's own)");
  app.add_flag("--ns", request.nanoseconds, "-s time in nanoseconds");
  std::string time_quantum;
  app.add_option("--time-quantum", time_quantum,
                 "-s time's buckets: a time with ns, us, ms or s (default 100ms)");
  app.add_flag("--raw-trace", request.raw_trace, "-s trace: each payload's raw fields, not its print format");
  app.add_flag("--full-source-path", request.full_source_path, "srcline with the source file's whole path");
  app.add_option("--switch-on", request.switch_on, "only samples after one of this event");
  app.add_option("--switch-off", request.switch_off,
                 "no samples after one of this event (until --switch-on's)");
  app.add_flag("--show-on-off-events", request.show_on_off_events,
               "count the --switch-on/--switch-off events' own samples too");
  bool dump_raw = false;
  app.add_flag("-D,--dump-raw-trace", dump_raw,
               "dump every record in hex and as perf reads it, then count them");
  app.add_flag("--disable-order", request.file_order, "take the records in file order, not sorted by time");
  // perf report's options for its TUI's annotate view, its objdump and its module loading: sonde
  // report prints text, annotates with capstone (sonde annotate) and reads kallsyms; accepted,
  // and the values checked where perf checks them.
  std::string objdump, disassembler_style, prefix, prefix_strip, percent_type, stdio_color;
  bool asm_raw = false, source = true, modules = false, ignore_vmlinux = false, demangle_kernel = false,
       show_ref_call_graph = false, inline_frames = true;
  int samples = 0;
  app.add_option("--objdump", objdump, "accepted: sonde disassembles with capstone, not objdump");
  app.add_flag("--asm-raw", asm_raw, "accepted: for the TUI's annotate view (see sonde annotate --asm-raw)");
  app.add_option("-M,--disassembler-style", disassembler_style,
                 "accepted: for the TUI's annotate view (see sonde annotate -M)");
  app.add_flag("--source,!--no-source", source, "accepted: for the TUI's annotate view");
  app.add_option("--prefix", prefix, "accepted: for the TUI's annotate view's source paths");
  app.add_option("--prefix-strip", prefix_strip, "accepted: for the TUI's annotate view's source paths");
  app.add_option(
      "--percent-type", percent_type,
      "accepted: for the TUI's annotate view (global-period, local-period, global-hits, local-hits)");
  app.add_flag("--modules", modules, "accepted: there are no module symbols beyond kallsyms to load");
  app.add_flag("--ignore-vmlinux", ignore_vmlinux,
               "accepted: sonde reads kallsyms unless -k names a vmlinux");
  app.add_flag("--demangle-kernel", demangle_kernel, "accepted: the kernel's symbols are C");
  app.add_flag("--show-ref-call-graph", show_ref_call_graph,
               "accepted: sonde shows every event's call graph, reference events' included");
  app.add_flag("--inline,!--no-inline", inline_frames,
               "accepted: inline functions are shown in DWARF call graphs, as perf 6.1 shows them");
  app.add_option("--samples", samples, "accepted: the TUI's samples kept per entry");
  app.add_option("--stdio-color", stdio_color, "accepted: always, never or auto (sonde prints no colour)");
  std::string fields;
  app.add_option(
      "-F,--fields", fields,
      "the columns: overhead, overhead_children, overhead_sys, overhead_us, sample, period and sort "
      "keys ('+' first: added to the default ones)");
  app.add_option("--ignore-callees", request.options.ignore_callees,
                 "count a sample in a callee of a function matching this regex for that function");
  app.add_flag("--hierarchy", request.hierarchy, "show the entries in a hierarchy, a level per sort key");
  bool group = false, no_group = false;
  size_t group_sort_index = 0;
  app.add_flag("--group", group,
               "show the events of a group together (every event as one when the file has none)");
  app.add_flag("--no-group", no_group, "show each event of a group apart");
  app.add_option("--group-sort-idx", group_sort_index,
                 "sort a group's entries by its N-th event (0 is the leader; out of range: the leader)");
  std::string pretty = "normal";
  app.add_option("--pretty", pretty, "-T's table: normal (a column per event) or raw (a line per count)");
  if (auto exit_code = parse_command_line(app, argc, argv, "report", AfterOptions::nothing))
    return *exit_code;
  if (request.kallsyms.empty() && request.vmlinux.empty())
    request.kallsyms = perfdata::recording_kallsyms(request.input);
  if (tui && stdio) return report_usage_error("report", "--tui and --stdio contradict each other");
  if (children && no_children)
    return report_usage_error("report", "--children and --no-children contradict each other");

  if (sort) {
    auto keys = analysis::parse_sort_keys(*sort);
    if (!keys) return report_error("report", keys.error());
    request.options.keys = *keys;
  }
  if (children) request.children = true;
  if (no_children) request.children = false;
  if (auto parsed = analysis::parse_call_graph(call_graph, request, inverted); !parsed)
    return report_error("report", parsed.error());
  if (auto parsed = analysis::parse_filters(request.filters, comms, dsos, symbols, pids, tids); !parsed)
    return report_error("report", parsed.error());
  if (!cpus.empty()) {
    auto list = kernel::parse_cpu_list(cpus);
    if (!list) return report_usage_error("report", list.error().message + " (--cpu)");
    request.filters.cpus = *list;
  }
  // An option that takes one of a few words; empty is "not given".
  auto one_of = [](const std::string& value, std::initializer_list<std::string_view> words) {
    return value.empty() || std::find(words.begin(), words.end(), value) != words.end();
  };
  if (pretty.empty() || !one_of(pretty, {"normal", "raw"}))
    return report_usage_error("report", "--pretty takes normal or raw");
  auto widths = parse_column_widths(column_widths);
  if (!widths) return report_usage_error("report", "--column-widths takes numbers: w[,w...]");
  request.layout.column_widths = *widths;
  if (!time_quantum.empty()) {
    auto quantum = analysis::parse_time_quantum(time_quantum);
    if (!quantum) return report_usage_error("report", quantum.error().message);
    request.time_quantum_ns = *quantum;
  }
  if (!one_of(percent_type, {"global-period", "local-period", "global-hits", "local-hits"}))
    return report_usage_error("report",
                              "--percent-type takes global-period, local-period, global-hits or local-hits");
  if (!one_of(stdio_color, {"always", "never", "auto"}))
    return report_usage_error("report", "--stdio-color takes always, never or auto");
  if (!one_of(disassembler_style, {"att", "intel"}))
    return report_usage_error("report", "-M/--disassembler-style takes att or intel");
  if (percentage.empty() || !one_of(percentage, {"absolute", "relative"}))
    return report_usage_error("report", "--percentage takes absolute or relative");
  request.relative_percentage = percentage == "relative";
  if (!fields.empty()) {
    auto parsed = analysis::parse_report_fields(fields);
    if (!parsed) return report_error("report", parsed.error());
    request.fields = *parsed;
  }
  if (!request.options.ignore_callees.empty())
    if (auto valid = analysis::check_parent_pattern(request.options.ignore_callees); !valid)
      return report_error("report", valid.error());
  if (group && no_group) return report_usage_error("report", "--group and --no-group contradict each other");
  if (group) request.group = true;
  if (no_group) request.group = false;
  request.group_sort_index = group_sort_index;
  if (request.filters.exclude_other && request.options.parent_pattern.empty())
    request.options.parent_pattern = "^sys_|^do_page_fault";  // perf's default --parent pattern
  request.data_views.itrace = itrace.has_value();
  request.parent_given = app.count("-p") > 0;

  if (!diff_base.empty() && html.empty())
    return report_usage_error(
        "report", "--diff BASE.data goes with --html (for text, use sonde diff BASE.data NEW.data)");
  if (!html.empty()) return write_html(request, html, diff_base);
  Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde report: ");
  if (dump_raw) {
    if (auto dumped = pipeline::dump_report_trace(request.input, diagnostics); !dumped)
      return report_error("report", dumped.error());
    return 0;
  }
  if (tasks || mmaps) {
    auto listed = analysis::list_tasks(request.input, mmaps, diagnostics);
    if (!listed) return report_error("report", listed.error());
    output::print_task_tree(stdout, *listed);
    return 0;
  }
  if (stats) {
    auto counted = analysis::count_records(request.input, diagnostics);
    if (!counted) return report_error("report", counted.error());
    output::print_record_stats(stdout, *counted, skip_empty);
    return 0;
  }
  if (request.collapsed_stacks) return print_collapsed_stacks(request);

  // perf's choice: the browser on a terminal, text otherwise, and for the views only text has.
  bool text_only = request.header || request.header_only || request.field_separator || request.show_threads ||
                   request.quiet;
  bool browse = tui || (!stdio && !text_only && output::terminal_usable());
  auto report = analysis::run_report(request, diagnostics);
  if (!report) return report_error("report", report.error());
  if (request.group_sort_index > 0 &&
      analysis::report_event_groups((*report)->session.reader().features().groups, (*report)->events.size(),
                                    request.group)
          .empty())
    return report_error("report",
                        Error{"--group-sort-idx orders the entries of an event group, and none is shown "
                              "here; record with --group or -e '{a,b}', or add --group"});
  if (browse) {
    if (auto browsed = pipeline::browse_report(**report, request); !browsed)
      return report_error("report", browsed.error());
    return 0;
  }
  output::print_report(stdout, **report, request);
  if (request.show_threads) output::print_thread_counts(stdout, (*report)->thread_counts, pretty == "raw");
  std::fflush(stdout);
  return 0;
}

}  // namespace sonde::cli
