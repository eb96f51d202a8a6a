// sonde sched: perf sched's subcommands. record runs sonde record with perf sched record's
// events; latency, timehist, map and replay read the file through pipeline/sched_run; script is sonde
// script over the file.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/strings.hpp"
#include "capture/tasks.hpp"
#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "kernel/cpus.hpp"
#include "pipeline/sched_run.hpp"

namespace sonde::cli {

namespace {

Diagnostics stderr_diagnostics() {
  return Diagnostics([](const Diagnostics::Message& message) {
    fmt::print(stderr, "{}{}\n", message.kind == Diagnostics::Kind::warning ? "sonde sched: warning: " : "",
               message.text);
  });
}

Result<std::vector<bool>> cpu_set(const std::string& text) {
  auto list = kernel::parse_cpu_list(text);
  if (!list) return tl::unexpected(list.error());
  std::vector<bool> set;
  for (int cpu : *list) {
    if (cpu < 0) continue;
    if (static_cast<size_t>(cpu) >= set.size()) set.resize(static_cast<size_t>(cpu) + 1, false);
    set[static_cast<size_t>(cpu)] = true;
  }
  return set;
}

// perf's --time "start,stop": seconds with an optional fraction, either side may be empty.
Result<uint64_t> parse_seconds(std::string_view text) {
  if (text.empty()) return 0;
  size_t dot = text.find('.');
  std::string_view whole = text.substr(0, dot);
  std::string_view fraction = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  if (whole.empty() || fraction.size() > 9) return failf("Invalid time string");
  uint64_t seconds = 0, ns = 0;
  for (char c : whole) {
    if (c < '0' || c > '9') return failf("Invalid time string");
    seconds = seconds * 10 + static_cast<uint64_t>(c - '0');
  }
  size_t digits = 0;
  for (char c : fraction) {
    if (c < '0' || c > '9') return failf("Invalid time string");
    ns = ns * 10 + static_cast<uint64_t>(c - '0');
    ++digits;
  }
  for (; digits < 9; ++digits) ns *= 10;
  return seconds * 1000000000ULL + ns;
}

int sched_latency(int argc, char** argv, const std::string& input) {
  analysis::SchedLatencyOptions options;
  options.input_path = input;
  std::string sort;
  CLI::App app{"Per-task scheduling latency (perf sched latency)", "sonde sched latency"};
  app.add_option("-i,--input", options.input_path, "input file (default perf.data)");
  app.add_option("-s,--sort", sort, "sort by key(s): runtime, switch, avg, max");
  app.add_option("-C,--CPU", options.profile_cpu, "CPU to profile on");
  app.add_flag("-p,--pids", options.per_pid, "latency stats per pid instead of per comm");
  if (auto exit_code = parse_command_line(app, argc, argv, "sched latency", AfterOptions::nothing))
    return *exit_code;
  if (!sort.empty()) {
    options.sort_keys.clear();
    for (size_t start = 0; start <= sort.size();) {
      size_t comma = sort.find(',', start);
      if (comma == std::string::npos) comma = sort.size();
      std::string key = sort.substr(start, comma - start);
      key.erase(0, key.find_first_not_of(' '));
      if (!key.empty()) options.sort_keys.push_back(key);
      start = comma + 1;
    }
    if (auto checked = analysis::check_latency_sort_keys(options.sort_keys); !checked)
      return report_usage_error("sched latency", checked.error().message);
  }
  Diagnostics diagnostics = stderr_diagnostics();
  auto done = pipeline::run_sched_latency(options, diagnostics);
  if (!done) return report_error("sched latency", done.error());
  return 0;
}

int sched_timehist(int argc, char** argv, const std::string& input) {
  analysis::SchedTimehistOptions options;
  options.input_path = input;
  std::string pids, tids, cpus, time;
  unsigned max_stack = 5;
  bool no_call_graph = false;
  CLI::App app{"Per-event scheduler history (perf sched timehist)", "sonde sched timehist"};
  app.add_option("-i,--input", options.input_path, "input file (default perf.data)");
  app.add_option("-C,--cpu", cpus, "list of cpus to profile");
  app.add_flag("-g,--call-graph", options.call_graph, "display call chains if present (default on)");
  app.add_flag("--no-call-graph", no_call_graph, "do not display call chains");
  app.add_flag("-I,--idle-hist", options.idle_hist, "show idle events only");
  app.add_flag("-M,--migrations", options.migrations, "show migration events");
  app.add_flag("-n,--next", options.next, "show next task");
  app.add_option("-p,--pid", pids, "analyze events only for given process id(s)");
  app.add_flag("-s,--summary", options.summary_only, "show only the summary with statistics");
  app.add_flag("-S,--with-summary", options.summary, "show all events and the summary with statistics");
  app.add_option("-t,--tid", tids, "analyze events only for given thread id(s)");
  app.add_flag("-V,--cpu-visual", options.cpu_visual, "add CPU visual");
  app.add_flag("-w,--wakeups", options.wakeups, "show wakeup events");
  app.add_option("--max-stack", max_stack, "maximum number of functions to display backtrace");
  app.add_flag("--state", options.state, "show task state when sched-out");
  app.add_option("--time", time, "time span for analysis (start,stop)");
  if (auto exit_code = parse_command_line(app, argc, argv, "sched timehist", AfterOptions::nothing))
    return *exit_code;
  if (no_call_graph) options.call_graph = false;
  options.max_stack = max_stack;
  if (options.summary_only && (options.wakeups || options.next))
    return report_usage_error("sched timehist", "-s and -[n|w] are mutually exclusive");
  if (options.summary_only) options.summary = true;
  for (auto [text, ids, what] :
       {std::tuple{&pids, &options.pids, "process id"}, std::tuple{&tids, &options.tids, "thread id"}}) {
    if (text->empty()) continue;
    auto parsed = capture::parse_task_ids(*text, what);
    if (!parsed) return report_usage_error("sched timehist", parsed.error().message);
    ids->assign(parsed->begin(), parsed->end());
  }
  if (!cpus.empty()) {
    auto set = cpu_set(cpus);
    if (!set) return report_usage_error("sched timehist", set.error().message);
    options.cpus = *set;
  }
  if (!time.empty()) {
    size_t comma = time.find(',');
    auto start = parse_seconds(std::string_view(time).substr(0, comma));
    auto end = comma == std::string::npos ? Result<uint64_t>(0)
                                          : parse_seconds(std::string_view(time).substr(comma + 1));
    if (!start || !end || (*end != 0 && *end < *start))
      return report_usage_error("sched timehist", "Invalid time string: give --time START,STOP in seconds");
    options.start = *start;
    options.end = *end;
  }
  Diagnostics diagnostics = stderr_diagnostics();
  auto done = pipeline::run_sched_timehist(options, diagnostics);
  if (!done) return report_error("sched timehist", done.error());
  return 0;
}

int sched_map(int argc, char** argv, const std::string& input) {
  analysis::SchedMapOptions options;
  options.input_path = input;
  std::string cpus, color_cpus, color_pids;
  CLI::App app{"Context switches as a map of what runs on each CPU (perf sched map)", "sonde sched map"};
  app.add_option("-i,--input", options.input_path, "input file (default perf.data)");
  app.add_flag("--compact", options.compact, "map output in compact mode");
  app.add_option("--cpus", cpus, "display given CPUs in map");
  app.add_option("--color-cpus", color_cpus, "highlight given CPUs in map");
  app.add_option("--color-pids", color_pids, "highlight given pids in map");
  if (auto exit_code = parse_command_line(app, argc, argv, "sched map", AfterOptions::nothing))
    return *exit_code;
  for (auto [text, set] : {std::pair{&cpus, &options.cpus}, std::pair{&color_cpus, &options.color_cpus}}) {
    if (text->empty()) continue;
    auto parsed = cpu_set(*text);
    if (!parsed) return report_usage_error("sched map", parsed.error().message);
    *set = *parsed;
  }
  if (!color_pids.empty()) {
    auto parsed = capture::parse_task_ids(color_pids, "thread id");
    if (!parsed) return report_usage_error("sched map", parsed.error().message);
    options.color_pids.assign(parsed->begin(), parsed->end());
  }
  Diagnostics diagnostics = stderr_diagnostics();
  auto done = pipeline::run_sched_map(options, diagnostics);
  if (!done) return report_error("sched map", done.error());
  return 0;
}

int sched_replay(int argc, char** argv, const std::string& input) {
  pipeline::SchedReplayOptions options;
  options.plan.input_path = input;
  std::string repeat;
  bool force = false;
  CLI::App app{"Replay a recording's tasks with threads (perf sched replay)", "sonde sched replay"};
  app.add_option("-i,--input", options.plan.input_path, "input file (default perf.data)");
  app.add_option("-r,--repeat", repeat, "repeat the workload replay N times (default 10)");
  app.add_flag("-v,--verbose", options.plan.verbose, "print each task as it is registered, and the events");
  // perf's -f raises the open-file limit for its per-task counters; sonde opens none.
  app.add_flag("-f,--force", force, "accepted for perf's sake; sonde needs no extra file descriptors");
  if (auto exit_code = parse_command_line(app, argc, argv, "sched replay", AfterOptions::nothing))
    return *exit_code;
  if (!repeat.empty()) {
    // perf's messages for a negative and for a non-numeric count.
    if (repeat.front() == '-')
      return report_usage_error("sched replay", "switch `r' expects an unsigned numerical value");
    auto parsed = parse_uint(repeat, 10);
    if (!parsed || *parsed > UINT32_MAX)
      return report_usage_error("sched replay", "switch `r' expects a numerical value");
    options.repeat = static_cast<unsigned>(*parsed);
  }
  Diagnostics diagnostics = stderr_diagnostics();
  auto done = pipeline::run_sched_replay(options, diagnostics);
  if (!done) return report_error("sched replay", done.error());
  return 0;
}

constexpr std::string_view kUsage =
    "usage: sonde sched [-i FILE] {record|latency|map|timehist|replay|script} [<options>]\n"
    "  record [-- COMMAND]   record the scheduler's events system-wide into perf.data (perf sched record)\n"
    "  latency               per-task scheduling latency (-s/--sort, -p/--pids, -C)\n"
    "  timehist              one line per context switch (-w, -M, -V, -s, -S, -I, --state, -n, -p, -t, -C, "
    "--time)\n"
    "  map                   what runs on each CPU at each switch (--compact, --cpus, --color-pids, "
    "--color-cpus)\n"
    "  replay                act the recorded tasks out again with threads (-r N rounds, -v)\n"
    "  script                sonde script over the file\n";

}  // namespace

int cmd_sched(int argc, char** argv) {
  // perf sched takes -i before the subcommand too: `perf sched -i FILE latency`.
  std::string input = "perf.data";
  int at = 1;
  while (at < argc) {
    std::string_view word = argv[at];
    if ((word == "-i" || word == "--input") && at + 1 < argc) {
      input = argv[at + 1];
      at += 2;
    } else if (word.starts_with("--input=")) {
      input = std::string(word.substr(8));
      ++at;
    } else {
      break;
    }
  }
  if (at >= argc) {
    fmt::print(stderr, "{}", kUsage);
    return 129;
  }
  std::string_view sub = argv[at];
  if (sub == "-h" || sub == "--help") {
    fmt::print("{}", kUsage);
    return 0;
  }
  int sub_argc = argc - at;
  char** sub_argv = argv + at;
  if (sub == "record" || sub == "rec") {
    std::vector<std::string> words = pipeline::sched_record_arguments();
    for (int i = 1; i < sub_argc; ++i) words.emplace_back(sub_argv[i]);
    return run_command(cmd_record, std::move(words));
  }
  if (sub == "latency" || sub == "lat") return sched_latency(sub_argc, sub_argv, input);
  if (sub == "timehist") return sched_timehist(sub_argc, sub_argv, input);
  if (sub == "map") return sched_map(sub_argc, sub_argv, input);
  if (sub == "script") {
    std::vector<std::string> words = {"script"};
    bool has_input = false;
    for (int i = 1; i < sub_argc; ++i) {
      std::string_view word = sub_argv[i];
      has_input = has_input || word == "-i" || word == "--input" || word.starts_with("--input=");
      words.emplace_back(word);
    }
    if (!has_input) words.insert(words.begin() + 1, {"-i", input});
    return run_command(cmd_script, std::move(words));
  }
  if (sub == "replay") return sched_replay(sub_argc, sub_argv, input);
  return report_usage_error("sched", fmt::format("unknown subcommand '{}'", sub));
}

}  // namespace sonde::cli
