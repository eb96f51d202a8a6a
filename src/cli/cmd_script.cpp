// sonde script: perf script's options; pipeline/script_run reads the file and prints its events.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "output/script/script_fields.hpp"
#include "perfdata/reader.hpp"
#include "pipeline/python_script.hpp"
#include "pipeline/script_run.hpp"
#include "pipeline/script_skeleton.hpp"

namespace sonde::cli {

namespace {

struct ScriptCliOptions {
  std::string input = "perf.data";
  std::vector<std::string> field_specs;
  std::string time, cpus, comms, pids, tids, dsos, symbols;
  uint64_t address_range = 0;
  std::string symfs, vmlinux, kallsyms;
  bool nanoseconds = false, hide_call_graph = false, inline_frames = true, demangle = true;
  bool header = false, header_only = false, dump_raw = false;
  unsigned max_stack = 127;
  bool show_task = false, show_mmap = false, show_switch = false, show_lost = false, show_namespace = false,
       show_cgroup = false, show_bpf = false, show_text_poke = false;
  bool reltime = false, deltatime = false, show_info = false;
};

}  // namespace

int cmd_script(int argc, char** argv) {
  ScriptCliOptions cli;
  cli.max_stack = pipeline::kernel_max_stack();
  CLI::App app{"Print every event of a perf.data file (perf script)", "sonde script"};
  app.add_option("-i,--input", cli.input, "input file name ('-' reads a pipe)");
  app.add_option("-F,--fields", cli.field_specs,
                 "fields to print: comm,tid,pid,time,cpu,event,trace,ip,sym,symoff,dso,srcline,period,addr,"
                 "flags,...; +field/-field change the defaults; hw:/sw:/trace: limit to one kind");
  app.add_flag("--header", cli.header, "print the file's header before the events");
  app.add_flag("--header-only", cli.header_only, "print the file's header only");
  app.add_flag("-I,--show-info", cli.show_info,
               "with --header: the CPU and NUMA topology, caches and memory nodes in full");
  app.add_flag("-D,--dump-raw-trace", cli.dump_raw,
               "dump every record in hex and as perf reads it, among the script's lines");
  app.add_flag("--ns", cli.nanoseconds, "show times in nanoseconds");
  app.add_flag("--reltime", cli.reltime, "show times relative to the first event's");
  app.add_flag("--deltatime", cli.deltatime, "show times relative to the previous event's");
  app.add_option("--time", cli.time, "only samples in this time range: start,stop (seconds)");
  app.add_option("-C,--cpu", cli.cpus, "only events on these CPUs (a list such as 0-2,4)");
  app.add_option("-c,--comms,--comm", cli.comms, "only samples of these comms (comma separated)");
  app.add_option("--pid", cli.pids, "only samples of these process ids");
  app.add_option("--tid", cli.tids, "only samples of these thread ids");
  app.add_option("--dsos", cli.dsos, "only samples in these DSOs (short or long names, comma separated)");
  app.add_option("-S,--symbols", cli.symbols,
                 "only samples in these symbols, or at these addresses (hex), comma separated");
  app.add_option("--addr-range", cli.address_range, "with -S: an address matches the bytes from it on");
  app.add_option("--symfs", cli.symfs, "look for files relative to this directory");
  app.add_option("-k,--vmlinux", cli.vmlinux, "vmlinux file for kernel symbols");
  app.add_option("--kallsyms", cli.kallsyms, "kallsyms file for kernel symbols");
  app.add_flag("--inline,!--no-inline", cli.inline_frames,
               "show inlined functions in DWARF-unwound callchains (the default, as in perf 6.1)");
  bool force = false;
  app.add_flag("--demangle,!--no-demangle", cli.demangle, "demangle C++ and Rust symbol names (default on)");
  app.add_flag("-f,--force", force, "accepted for perf compatibility: sonde reads files whoever owns them");
  app.add_option("--max-stack", cli.max_stack, "print at most this many callchain entries");
  app.add_flag("-G,--hide-call-graph", cli.hide_call_graph, "do not print callchains");
  app.add_flag("--show-task-events", cli.show_task, "show COMM, FORK and EXIT records");
  app.add_flag("--show-mmap-events", cli.show_mmap, "show MMAP and MMAP2 records");
  app.add_flag("--show-switch-events", cli.show_switch, "show context switch records");
  app.add_flag("--show-lost-events", cli.show_lost, "show LOST records");
  app.add_flag("--show-namespace-events", cli.show_namespace, "show NAMESPACES records");
  app.add_flag("--show-cgroup-events", cli.show_cgroup, "show CGROUP records");
  app.add_flag("--show-bpf-events", cli.show_bpf, "show KSYMBOL and BPF_EVENT records");
  app.add_flag("--show-text-poke-events", cli.show_text_poke,
               "show TEXT_POKE (kernel text changed, record --kcore) and KSYMBOL records");
  // Views of instruction traces (Intel PT and the like): refused for files without AUX data.
  std::optional<std::string> call_trace, call_ret_trace, insn_trace, xed;
  std::string graph_function;
  app.add_option("--call-trace", call_trace, "calls from an instruction trace")->expected(0, 1);
  app.add_option("--call-ret-trace", call_ret_trace, "calls and returns from an instruction trace")
      ->expected(0, 1);
  app.add_option("--insn-trace", insn_trace, "instructions from an instruction trace (raw|disasm)")
      ->expected(0, 1);
  app.add_option("--xed", xed, "disassemble an instruction trace with xed")->expected(0, 1);
  app.add_option("--graph-function", graph_function, "with --call-trace: only these functions and callees");
  std::string stop_bt, max_blocks;
  app.add_option("--stop-bt", stop_bt, "with brstackinsn: stop the branch trace at these symbols");
  app.add_option("--max-blocks", max_blocks, "with brstackinsn: at most N code blocks");
  bool show_rounds = false, dump_unsorted = false, stitch_lbr = false, show_on_off = false;
  std::string options_switch_on, options_switch_off;
  app.add_flag("--show-round-events", show_rounds,
               "show FINISHED_ROUND records (the records then come in file order)");
  app.add_flag("--dump-unsorted-raw-trace", dump_unsorted, "-D in file order, not sorted by time");
  std::optional<std::string> itrace;
  app.add_option("--itrace", itrace, "decode AUX area traces (Intel PT and the like)")->expected(0, 1);
  app.add_flag("--stitch-lbr", stitch_lbr, "stitch LBR call stacks (with --call-graph lbr recordings)");
  app.add_option("--switch-on", options_switch_on, "only samples after one of this event");
  app.add_option("--switch-off", options_switch_off,
                 "no samples after one of this event (until --switch-on's)");
  app.add_flag("--show-on-off-events", show_on_off,
               "show the --switch-on/--switch-off events' own samples too");
  bool full_source_path = false;
  app.add_flag("--full-source-path", full_source_path, "srcline with the source file's whole path");
  // A KVM guest's symbols (perf kvm's recordings): sonde leaves guest samples unresolved, so the
  // places are accepted, as perf accepts them for a file without guest samples.
  std::string guest_mount, guest_kallsyms, guest_modules, guest_vmlinux;
  bool guest_code = false;
  app.add_option("--guestmount", guest_mount, "accepted: sonde leaves KVM guests' samples unresolved");
  app.add_option("--guestkallsyms", guest_kallsyms, "accepted: sonde leaves KVM guests' samples unresolved");
  app.add_option("--guestmodules", guest_modules, "accepted: sonde leaves KVM guests' samples unresolved");
  app.add_option("--guestvmlinux", guest_vmlinux, "accepted: sonde leaves KVM guests' samples unresolved");
  app.add_flag("--guest-code", guest_code, "accepted: sonde leaves KVM guests' samples unresolved");
  bool per_event_dump = false;
  app.add_flag("--per-event-dump", per_event_dump,
               "each event's lines into INPUT.EVENT.dump instead of stdout");
  bool demangle_kernel = false, show_kernel_path = false, debug_mode = false, verbose = false;
  app.add_flag("--demangle-kernel", demangle_kernel,
               "accepted: the kernel's symbols are C, with nothing to demangle");
  app.add_flag("--show-kernel-path", show_kernel_path,
               "accepted: sonde names the kernel from kallsyms, [kernel.kallsyms], which has no path");
  app.add_flag("--debug-mode", debug_mode,
               "accepted: sonde always checks the samples' order and says what is lost");
  app.add_flag("-v,--verbose", verbose, "accepted: sonde's warnings are always shown");
  std::string dlfilter;
  std::vector<std::string> dlargs;
  bool list_dlfilters = false;
  app.add_option("--dlfilter", dlfilter, "filter the samples with this shared object (perf's dlfilter API)");
  app.add_option("--dlarg", dlargs, "an argument for the dlfilter's start() (repeatable)");
  app.add_flag("--list-dlfilters", list_dlfilters, "list the dlfilters here and perf's, with descriptions");
  std::string gen_script;
  app.add_option("-g,--gen-script", gen_script,
                 "write perf's script skeleton for the file's events (python)");
  std::string script_name;
  app.add_option("-s,--script", script_name,
                 "run a Python script's handlers over the samples (perf's Python scripting); the "
                 "words after the options are the script's arguments");
  bool list_scripts = false;
  app.add_flag("-l,--list", list_scripts,
               "list the scripts sonde ships (run one as: sonde script NAME [ARGS])");
  bool all_cpus = false;
  app.add_flag("-a,--all-cpus", all_cpus,
               "accepted: perf's option for 'perf script record' (sonde has none)");
  if (auto exit_code = parse_command_line(app, argc, argv, "script")) return *exit_code;
  if (cli.kallsyms.empty() && cli.vmlinux.empty()) cli.kallsyms = perfdata::recording_kallsyms(cli.input);
  auto rest = command_after_options(app, "script");
  if (!rest) return report_error(rest.error());
  if (list_scripts) {
    auto listing = pipeline::python_script_listing();
    if (!listing) return report_error("script", listing.error());
    fmt::print("{}", *listing);
    return 0;
  }
  // perf's `perf script SCRIPT.py ARGS` and `perf script NAME ARGS` (a shipped script): a script
  // named in place of -s.
  if (script_name.empty() && !rest->empty()) {
    if (rest->front().ends_with(".py")) {
      script_name = rest->front();
    } else if (auto shipped = pipeline::shipped_python_script(rest->front())) {
      script_name = *shipped;
    }
    if (!script_name.empty()) rest->erase(rest->begin());
  }
  if (!rest->empty() && script_name.empty())
    return report_usage_error(
        "script", fmt::format("unexpected argument '{}'; see 'sonde script --help'", rest->front()));
  std::optional<output::python::PythonScriptOptions> python;
  if (!script_name.empty()) {
    auto chosen = pipeline::find_python_script(script_name);
    if (!chosen) return report_error("script", chosen.error());
    python = output::python::PythonScriptOptions{*chosen, std::move(*rest)};
  }

  if (list_dlfilters) {
    fmt::print("{}", pipeline::dlfilter_listing());
    return 0;
  }
  if (!gen_script.empty()) {
    if (gen_script == "perl" || gen_script == "pl" || gen_script == "Perl")
      return report_usage_error("script", "-g perl: sonde writes Python script skeletons only (-g python)");
    if (gen_script != "python" && gen_script != "py" && gen_script != "Python")
      return report_usage_error("script",
                                fmt::format("-g {}: invalid language specifier (python)", gen_script));
    if (!cli.field_specs.empty())
      return report_usage_error("script", "custom fields not supported for generated scripts");
    auto written = pipeline::write_python_skeleton(cli.input);
    if (!written) return report_error("script", written.error());
    fmt::print(stderr, "generated Python script: {}\n", *written);
    return 0;
  }
  if (!dlargs.empty() && dlfilter.empty())
    return report_usage_error("script", "--dlarg goes with --dlfilter");
  if (cli.reltime && cli.deltatime)
    return report_usage_error("script", "--reltime and --deltatime exclude each other; give one");

  pipeline::ScriptRunOptions run;
  run.input = cli.input;
  auto& options = run.script;
  std::vector<std::string> warnings;
  for (const std::string& spec : cli.field_specs) {
    if (auto applied = output::apply_field_spec(options.fields, spec, warnings); !applied)
      return report_error("script", applied.error());
  }
  for (const std::string& warning : warnings) fmt::print(stderr, "{}\n", warning);
  auto filter = pipeline::parse_script_filter(
      {cli.time, cli.cpus, cli.comms, cli.pids, cli.tids, cli.dsos, cli.symbols, cli.address_range});
  if (!filter) return report_error("script", filter.error());
  options.filter = std::move(*filter);
  options.nanoseconds = cli.nanoseconds;
  options.times = cli.reltime     ? output::ScriptTimes::since_first
                  : cli.deltatime ? output::ScriptTimes::since_previous
                                  : output::ScriptTimes::absolute;
  options.use_callchain = !cli.hide_call_graph;
  options.max_stack = cli.max_stack;
  options.inline_frames = cli.inline_frames;
  options.show_task_events = cli.show_task;
  options.show_mmap_events = cli.show_mmap;
  options.show_switch_events = cli.show_switch;
  options.show_lost_events = cli.show_lost;
  options.show_namespace_events = cli.show_namespace;
  options.show_cgroup_events = cli.show_cgroup;
  options.show_bpf_events = cli.show_bpf;
  options.show_text_poke_events = cli.show_text_poke;
  options.show_round_events = show_rounds;
  options.switch_on = options_switch_on;
  options.switch_off = options_switch_off;
  options.show_on_off_events = show_on_off;
  if (per_event_dump) options.per_event_dump_prefix = cli.input;
  run.symbols = {cli.symfs, cli.kallsyms, cli.vmlinux, cli.demangle, cli.inline_frames, full_source_path};
  run.header = cli.header;
  run.header_only = cli.header_only;
  run.show_info = cli.show_info;
  run.dump_raw = cli.dump_raw;
  run.dump_unsorted = dump_unsorted;
  run.itrace = itrace.has_value();
  run.stitch_lbr = stitch_lbr;
  run.progress_label = "sonde script: reading " + cli.input;
  run.time_slices = cli.time;
  run.dlfilter = dlfilter;
  run.dlargs = dlargs;
  run.python = std::move(python);
  if (call_trace)
    run.instruction_trace_option = "--call-trace";
  else if (call_ret_trace)
    run.instruction_trace_option = "--call-ret-trace";
  else if (insn_trace)
    run.instruction_trace_option = "--insn-trace";
  else if (xed)
    run.instruction_trace_option = "--xed";
  else if (!graph_function.empty())
    run.instruction_trace_option = "--graph-function";

  Diagnostics diagnostics(
      [](const Diagnostics::Message& message) { fmt::print(stderr, "sonde script: {}\n", message.text); });
  auto done = pipeline::run_script(std::move(run), diagnostics);
  if (!done) return report_error("script", done.error());
  return *done;
}

}  // namespace sonde::cli
