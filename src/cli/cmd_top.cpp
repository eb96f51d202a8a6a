// sonde top: perf top's options; pipeline/top_run samples and folds, this file draws the screens
// on standard output and reads perf top's keys from a terminal.
#include <fmt/format.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "analysis/report/report_options.hpp"
#include "base/strings.hpp"
#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "cli/terminal_keys.hpp"
#include "pipeline/top_run.hpp"

namespace sonde::cli {

namespace {

// perf's get_term_dimensions: $LINES and $COLUMNS, else the terminal's size, else 25 x 80.
struct TerminalSize {
  size_t rows = 25, columns = 80;
};
TerminalSize terminal_size() {
  TerminalSize size;
  const char* lines = std::getenv("LINES");
  const char* columns = std::getenv("COLUMNS");
  if (lines != nullptr && columns != nullptr) {
    auto rows = parse_uint(lines, 10);
    auto cols = parse_uint(columns, 10);
    if (rows && cols && *rows > 0 && *cols > 0) return {*rows, *cols};
  }
  winsize window{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &window) == 0 && window.ws_row > 0 && window.ws_col > 0)
    return {window.ws_row, window.ws_col};
  return size;
}

}  // namespace

int cmd_top(int argc, char** argv) {
  pipeline::TopOptions top;
  capture::RecordOptions& sampling = top.record;
  pipeline::RecordTargetSpec& target = top.target;
  EventOptions event_options;
  bool all_cpus = false, callchain = false, children = false, no_children = false, stdio = false, tui = false;
  uint64_t frequency = 0, period = 0;
  std::optional<size_t> entries;
  int delay = 2;
  int realtime = 0;
  std::string sort, call_graph, column_widths;
  double percent_limit = 0;
  CLI::App app{"Profile the system live, hottest functions first (perf top)", "sonde top"};
  add_event_options(app, event_options, "top");
  app.add_flag("-a,--all-cpus", all_cpus, "system-wide collection from all CPUs (the default)");
  app.add_option("-p,--pid", target.pids, "profile existing process ids (comma separated)");
  app.add_option("-t,--tid", target.tids, "profile existing thread ids (comma separated)");
  app.add_option("-C,--cpu", target.cpu_list, "list of CPUs to profile");
  app.add_option("-F,--freq", frequency, "sample at this frequency (Hz; default 4000)");
  app.add_option("-c,--count", period, "sample every N events");
  app.add_flag("-g", callchain, "sample call graphs (frame pointers) and show them, children accumulated");
  app.add_option("--call-graph", call_graph, "fp: as -g (sonde top unwinds frame pointers only)");
  app.add_flag("--children", children, "accumulate callchains of children into the parent entries");
  app.add_flag("--no-children", no_children, "show each entry's own samples only");
  app.add_option("--max-stack", top.max_stack, "callchain entries to use at most (default 127)");
  app.add_flag("-K,--hide_kernel_symbols", top.toggles.hide_kernel, "hide kernel symbols");
  app.add_flag("-U,--hide_user_symbols", top.toggles.hide_user, "hide user symbols");
  app.add_option("-s,--sort", sort, "sort by keys: comm, pid, dso, sym, cpu (default dso,sym)");
  app.add_flag("-n,--show-nr-samples", top.layout.show_samples, "show a column with the number of samples");
  app.add_flag("--show-total-period", top.layout.show_period, "show a column with the sum of periods");
  app.add_option("-d,--delay", delay, "whole seconds between screens (default 2; at least 1)");
  app.add_flag("-z,--zero", top.toggles.zero, "each screen shows only the samples since the last");
  app.add_flag("--stdio", stdio, "print screens of text (sonde top always does)");
  app.add_flag("--tui", tui, "the terminal browser (not available yet)");
  app.add_option("-E,--entries", entries, "entries shown (default: what the terminal's rows hold)");
  app.add_option("--percent-limit", percent_limit, "hide entries below this percentage");
  app.add_option("-r,--realtime", realtime, "sample with SCHED_FIFO at this priority");
  app.add_option("-w,--column-widths", column_widths, "the columns' widths: w[,w...]");
  // 2 MB a CPU by default (perf top's 512 KB): a burst of tracepoint samples outruns a loaded
  // machine's wake-ups before it fills that.
  sampling.mmap_pages = 512;
  app.add_option("-m,--mmap-pages", sampling.mmap_pages,
                 "ring buffer data pages per CPU (a power of two; default 512)");
  app.add_flag("-v,--verbose", top.verbose, "say which events fell back to what");
  if (auto exit_code = parse_command_line(app, argc, argv, "top", AfterOptions::nothing)) return *exit_code;
  if (event_options.error) return report_error("top", *event_options.error);
  if (tui)
    return report_usage_error("top", "there is no terminal browser yet; sonde top prints --stdio screens");
  if (children && no_children)
    return report_usage_error("top", "--children and --no-children contradict each other");
  delay = std::clamp(delay, 1, 86400);  // perf: below 1 is 1
  if (sampling.mmap_pages == 0 || (sampling.mmap_pages & (sampling.mmap_pages - 1)))
    return report_usage_error("top", "-m needs a power of two number of pages");
  if (!call_graph.empty()) {
    if (call_graph != "fp" && !call_graph.starts_with("fp,"))
      return report_usage_error(
          "top", fmt::format("--call-graph {}: sonde top unwinds frame pointers only; use fp", call_graph));
    callchain = true;
  }
  if (!sort.empty()) {
    auto keys = analysis::parse_sort_keys(sort);
    if (!keys) return report_error("top", keys.error());
    for (analysis::SortKey key : *keys)
      if (key != analysis::SortKey::comm && key != analysis::SortKey::pid && key != analysis::SortKey::dso &&
          key != analysis::SortKey::sym && key != analysis::SortKey::cpu)
        return report_usage_error("top",
                                  fmt::format("-s {}: sonde top sorts by comm, pid, dso, sym and cpu", sort));
    top.keys = *keys;
  }
  auto widths = parse_column_widths(column_widths);
  if (!widths) return report_usage_error("top", "-w/--column-widths takes numbers: w[,w...]");
  top.layout.column_widths = *widths;
  (void)all_cpus;
  top.events = std::move(event_options.events);
  if (frequency) sampling.frequency = frequency;
  if (period) sampling.period = period;
  if (callchain) sampling.call_graph = capture::CallGraph::frame_pointer;
  top.children = callchain && !no_children;
  top.delay = std::chrono::seconds(delay);
  top.layout.percent_limit = percent_limit;
  if (callchain) {
    top.layout.callchain = analysis::CallchainParams{};
    if (percent_limit > 0) top.layout.callchain.min_percent = percent_limit;
    top.layout.graph.mode = top.layout.callchain.mode;
    top.layout.graph.value = top.layout.callchain.value;
    top.layout.graph.skip_first_function =
        top.keys.empty() ? false : top.keys.front() == analysis::SortKey::sym;
  }
  TerminalSize size = terminal_size();
  // perf's print_entries: the rows less the header's five.
  top.entries = entries ? *entries : (size.rows > 5 ? size.rows - 5 : 1);
  top.width = size.columns;

  if (realtime > 0) {
    sched_param param{};
    param.sched_priority = realtime;
    if (::sched_setscheduler(0, SCHED_FIFO, &param) != 0)
      return report_error(
          "top", Error{fmt::format("cannot set real-time priority {}: {}; give 1-{} as root", realtime,
                                   errno_text(errno), sched_get_priority_max(SCHED_FIFO))});
  }

  // perf top's keys, from a terminal only: q quits, z toggles zeroing, K and U hide the kernel's
  // or user space's entries.
  TerminalKeys keys;
  top.poll_input = [&keys](pipeline::TopToggles& toggles) {
    for (int key = keys.poll(); key >= 0; key = keys.poll()) {
      if (key == 'q' || key == 'Q') return false;
      if (key == 'z') toggles.zero = !toggles.zero;
      if (key == 'K') toggles.hide_kernel = !toggles.hide_kernel;
      if (key == 'U') toggles.hide_user = !toggles.hide_user;
    }
    return true;
  };
  top.show = [](const std::string& screen) {
    std::fputs("\033[H\033[2J\n", stdout);  // perf's puts of the clear
    std::fputs(screen.c_str(), stdout);
    std::fflush(stdout);
  };
  Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde top: ");
  auto result = pipeline::run_top(std::move(top), diagnostics);
  keys.restore();
  if (!result) return report_error("top", result.error());
  if (result->quit) std::fputs("exiting.\n", stdout);
  return 0;
}

}  // namespace sonde::cli
