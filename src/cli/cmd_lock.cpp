// sonde lock: perf lock's record, contention, report, info and script. record runs sonde record with
// perf lock record's events; contention, report and info read the file through pipeline/lock_run;
// script is sonde script over the file. perf lock's own options (-i, -v, -q, -f, --kallsyms) go
// before the subcommand, as in perf.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "capture/tasks.hpp"
#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "cli/event_options.hpp"
#include "kernel/cpus.hpp"
#include "pipeline/lock_run.hpp"

namespace sonde::cli {

namespace {

constexpr std::string_view kLockUsage =
    "usage: sonde lock [-i FILE] [-v] [-q] [--kallsyms FILE] {record|contention|report|info|script} "
    "[<options>]\n"
    "  record [-- COMMAND]  record the kernel's lock contention (lock:contention_begin/end) into perf.data\n"
    "  contention           waits by call stack (-k, -F, -E, -t, --max-stack, --stack-skip)\n"
    "  report               waits by lock (-k, -F, -E, -t, -c)\n"
    "  info                 the threads (-t) or the locks (-m) the file saw\n"
    "  script               sonde script over the file\n";

struct LockGlobals {
  std::string input = "perf.data";
  bool verbose = false, quiet = false;
  std::string kallsyms = "/proc/kallsyms";
};

// -k and -F for one subcommand: the key must be one the subcommand sorts by, and is added as the
// last column when -F leaves it out.
std::optional<int> lock_columns(std::string_view sub, const std::string& key_text,
                                const std::string& fields_text, bool allow_acquired,
                                pipeline::LockRunOptions& run) {
  auto key = analysis::parse_lock_field(key_text);
  if (!key || (!allow_acquired && *key == analysis::LockField::acquired))
    return report_usage_error(
        "lock", fmt::format("unknown {} key '{}'; give contended, wait_total, wait_max, wait_min "
                            "or avg_wait{}",
                            sub, key_text, allow_acquired ? " (or acquired)" : ""));
  auto fields = analysis::parse_lock_fields(fields_text);
  if (!fields) return report_usage_error("lock", fields.error().message);
  run.analysis.key = *key;
  run.text.fields = *fields;
  if (std::find(fields->begin(), fields->end(), *key) == fields->end()) run.text.fields.push_back(*key);
  return std::nullopt;
}

int lock_view(std::string_view sub, int argc, char** argv, const LockGlobals& globals) {
  pipeline::LockRunOptions run;
  run.analysis.input_path = globals.input;
  run.analysis.kallsyms = globals.kallsyms;
  run.analysis.save_callstacks = globals.verbose;
  run.text.quiet = globals.quiet;
  run.text.verbose = globals.verbose;
  run.text.entries = INT_MAX / 2;
  bool contention = sub == "contention";
  std::string key = contention ? "wait_total" : "acquired";
  std::string fields = contention ? "contended,wait_total,wait_max,avg_wait"
                                  : "acquired,contended,avg_wait,wait_total,wait_max,wait_min";
  bool threads = false, map = false, use_bpf = false, all_cpus = false;
  std::string cpus, pids, tids;
  int map_entries = 10240;
  CLI::App app{fmt::format("perf lock {}", sub), fmt::format("sonde lock {}", sub)};
  if (sub == "info") {
    app.add_flag("-t,--threads", threads, "dump the thread list in perf.data");
    app.add_flag("-m,--map", map, "dump the map of lock instances (address:name table)");
  } else {
    app.add_option("-k,--key", key, "key for sorting (contended, wait_total, wait_max, wait_min, avg_wait)");
    app.add_option("-F,--field", fields,
                   "output fields (contended, wait_total, wait_max, wait_min, avg_wait)");
    app.add_flag("-t,--threads", threads, "show per-thread lock stats");
    app.add_option("-E,--entries", run.text.entries, "display this many functions");
  }
  if (contention) {
    app.add_option("--max-stack", run.analysis.max_stack,
                   "set the maximum stack depth when collecting lock contention");
    app.add_option("--stack-skip", run.analysis.stack_skip,
                   "set the number of stack depth to skip when finding a lock caller");
    app.add_flag("-b,--use-bpf", use_bpf,
                 "use BPF program to collect lock contention stats (live: a command, -p, --tid or -a)");
    app.add_flag("-a,--all-cpus", all_cpus, "system-wide collection from all CPUs (with -b)");
    app.add_option("-C,--cpu", cpus, "list of cpus to monitor (with -b)");
    app.add_option("-p,--pid", pids, "trace on existing process id (with -b)");
    app.add_option("--tid", tids, "trace on existing thread id (with -b)");
    app.add_option("-M,--map-nr-entries", map_entries, "max number of BPF map entries (with -b)");
  }
  bool combine = false;
  if (sub == "report") app.add_flag("-c,--combine-locks", combine, "combine locks in the same class");
  if (auto exit_code = parse_command_line(app, argc, argv, fmt::format("lock {}", sub),
                                          contention ? AfterOptions::command : AfterOptions::nothing))
    return *exit_code;
  pipeline::LockBpfOptions bpf;
  if (contention) {
    auto command = command_after_options(app, "lock contention");
    if (!command) return report_error(command.error());
    bpf.command = *command;
    if (!use_bpf && (!bpf.command.empty() || all_cpus || !cpus.empty() || !pids.empty() || !tids.empty()))
      return report_usage_error("lock",
                                "a command, -a, -C, -p and --tid go with -b (live); without it contention "
                                "reads a file ('sonde lock record' makes one)");
    bpf.system_wide = all_cpus;
    bpf.map_entries = static_cast<uint32_t>(std::max(map_entries, 1));
    for (auto [text, list, what] :
         {std::tuple{&pids, &bpf.pids, "process"}, std::tuple{&tids, &bpf.tids, "thread"}}) {
      if (text->empty()) continue;
      auto ids = capture::parse_task_ids(*text, what);
      if (!ids) return report_error("lock", ids.error());
      *list = *ids;
    }
    if (!cpus.empty()) {
      auto list = kernel::parse_cpu_list(cpus);
      if (!list) return report_error("lock", list.error());
      bpf.cpus = *list;
    }
  }
  if (sub == "info") {
    if (!threads && !map) return report_usage_error("lock", "info needs -t (threads) or -m (locks)");
    run.analysis.aggregation = analysis::LockAggregation::address;
    Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde lock: ", globals.verbose);
    for (auto [wanted, view] : {std::pair{threads, pipeline::LockView::info_threads},
                                std::pair{map, pipeline::LockView::info_map}}) {
      if (!wanted) continue;
      run.view = view;
      if (auto done = pipeline::run_lock(run, diagnostics); !done) return report_error("lock", done.error());
    }
    return 0;
  }
  if (auto exit_code = lock_columns(sub, key, fields, !contention, run)) return *exit_code;
  run.view = contention ? pipeline::LockView::contention : pipeline::LockView::report;
  run.text.threads = threads;
  run.combine = combine;
  if (threads)
    run.analysis.aggregation = analysis::LockAggregation::task;
  else
    run.analysis.aggregation =
        contention ? analysis::LockAggregation::caller : analysis::LockAggregation::address;
  Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde lock: ", globals.verbose);
  if (use_bpf) {
    auto status = pipeline::run_lock_bpf(run, bpf, diagnostics);
    if (!status) return report_error("lock", status.error());
    return *status;
  }
  if (auto done = pipeline::run_lock(run, diagnostics); !done) return report_error("lock", done.error());
  return 0;
}

// perf's subcommand names: record, report and contention by any prefix of three or more letters.
std::string lock_subcommand(std::string_view word) {
  for (std::string_view full : {"record", "report", "contention"})
    if (word.size() >= 3 && full.starts_with(word)) return std::string(full);
  if (word == "info" || word == "script") return std::string(word);
  return {};
}

}  // namespace

int cmd_lock(int argc, char** argv) {
  LockGlobals globals;
  int at = 1;
  for (; at < argc; ++at) {
    std::string_view word = argv[at];
    if (word == "-h" || word == "--help") {
      fmt::print("{}", kLockUsage);
      return 0;
    }
    if ((word == "-i" || word == "--input" || word == "--kallsyms") && at + 1 < argc) {
      (word == "--kallsyms" ? globals.kallsyms : globals.input) = argv[++at];
    } else if (word.starts_with("--input=")) {
      globals.input = std::string(word.substr(8));
    } else if (word.starts_with("--kallsyms=")) {
      globals.kallsyms = std::string(word.substr(11));
    } else if (word == "-v" || word == "--verbose") {
      globals.verbose = true;
    } else if (word == "-q" || word == "--quiet") {
      globals.quiet = true;
    } else if (word == "-f" || word == "--force") {
      // perf's -f skips its file-ownership check; sonde makes none.
    } else if (word.starts_with("-")) {
      return report_usage_error("lock", fmt::format("unknown option '{}' before the subcommand", word));
    } else {
      break;
    }
  }
  if (at >= argc) {
    fmt::print(stderr, "{}", kLockUsage);
    return 129;
  }
  std::string sub = lock_subcommand(argv[at]);
  if (sub.empty())
    return report_usage_error(
        "lock",
        fmt::format("unknown subcommand '{}'; give record, contention, report, info or script", argv[at]));
  int sub_argc = argc - at;
  char** sub_argv = argv + at;
  if (sub == "record") {
    auto words = pipeline::lock_record_arguments();
    if (!words) return report_error("lock", words.error());
    for (int i = 1; i < sub_argc; ++i) words->emplace_back(sub_argv[i]);
    return run_command(cmd_record, std::move(*words));
  }
  if (sub == "script") {
    std::vector<std::string> words = {"script", "-i", globals.input};
    for (int i = 1; i < sub_argc; ++i) words.emplace_back(sub_argv[i]);
    return run_command(cmd_script, std::move(words));
  }
  return lock_view(sub, sub_argc, sub_argv, globals);
}

}  // namespace sonde::cli
