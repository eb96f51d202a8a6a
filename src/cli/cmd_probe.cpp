// sonde probe: perf probe's command line. Adds uprobes (-x BINARY) from perf-probe(1)'s
// definitions, lists (-l) and deletes (-d) the dynamic probes defined, and shows a probe point's
// variables (-V) and a binary's functions (-F). What is added is said on stderr and listings go
// to stdout, as perf does; failures exit with perf's -errno status.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "base/strings.hpp"
#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "pipeline/probe_run.hpp"

namespace sonde::cli {

int cmd_probe(int argc, char** argv) {
  CLI::App app{"Define new dynamic tracepoints", "sonde probe"};
  pipeline::ProbeRunOptions options;
  std::vector<std::string> adds, deletes, positional, func_filters;
  std::string module, list_filter, line_spec, vars_spec, source_dir, target;
  std::vector<std::string> definitions_spec;
  bool verbose = false, quiet = false, externs = false, no_inlines = false, no_demangle = false,
       demangle = false;
  bool list = false, funcs = false;
  std::string funcs_pattern;
  app.add_option("-x,--exec", options.binary, "target executable name or path");
  app.add_option("-m,--module", module, "target module name (for online) or path (for offline)");
  app.add_option("-a,--add", adds, "probe point definition");
  app.add_option("-d,--del", deletes, "delete a probe event");
  auto* list_option =
      app.add_option("-l,--list", list_filter, "list up current probe events")->expected(0, 1);
  app.add_option("-L,--line", line_spec, "Show source code lines");
  app.add_option("-V,--vars", vars_spec, "Show accessible variables on PROBEDEF");
  app.add_flag("--externs", externs, "Show external variables too (with --vars only)");
  app.add_flag("--no-inlines", no_inlines, "Don't search inlined functions");
  auto* funcs_option =
      app.add_option("-F,--funcs", funcs_pattern, "Show potential probe-able functions")->expected(0, 1);
  app.add_option("--filter", func_filters, "Set a filter (with --vars/funcs only)");
  app.add_flag("-n,--dry-run", options.dry_run, "dry run");
  app.add_option("-D,--definition", definitions_spec,
                 "Show trace event definition of given traceevent for k/uprobe_events.");
  app.add_flag("-v,--verbose", verbose, "be more verbose (show parsed arguments, etc)");
  app.add_flag("-q,--quiet", quiet, "be quiet (do not show any warnings or messages)");
  app.add_flag("-f,--force", options.force, "forcibly add events with existing name");
  app.add_option("--max-probes", options.max_probes, "Set how many probe points can be found for a probe.");
  app.add_option("-k,--vmlinux", options.symbols.vmlinux, "vmlinux pathname");
  app.add_option("-s,--source", source_dir, "path to kernel source");
  app.add_flag("--demangle", demangle, "Enable symbol demangling");
  app.add_flag("--no-demangle", no_demangle, "Disable symbol demangling");
  app.add_option("--target,--target-ns", target,
                 "target pid for uprobes (paths through its mount namespace)");
  app.add_option("definition", positional,
                 "probe point definition (its words are joined, as perf joins them)");
  if (auto exit_code = parse_command_line(app, argc, argv, "probe", AfterOptions::nothing)) return *exit_code;
  list = list_option->count() > 0;
  funcs = funcs_option->count() > 0;
  options.inlines = !no_inlines;
  options.keep_definitions = verbose;
  (void)demangle;
  if (!module.empty())
    return report_errno_error(
        "probe",
        Error{"-m: kernel modules need kprobes, which this kernel lacks; user probes with -x BINARY work",
              Error::Kind::failed, EOPNOTSUPP});
  if (!target.empty()) {
    auto binary = pipeline::binary_in_target(target, options.binary);
    if (!binary) return report_errno_error("probe", binary.error());
    options.binary = *binary;
  }
  // -V and -L read a vmlinux (-k) as they read a user binary.
  if (options.binary.empty() && !options.symbols.vmlinux.empty() &&
      (!vars_spec.empty() || !line_spec.empty()))
    options.binary = options.symbols.vmlinux;
  if (!positional.empty()) adds.push_back(join(positional, " "));

  int commands = (adds.empty() ? 0 : 1) + (deletes.empty() ? 0 : 1) + (list ? 1 : 0) +
                 (line_spec.empty() ? 0 : 1) + (vars_spec.empty() ? 0 : 1) + (funcs ? 1 : 0) +
                 (definitions_spec.empty() ? 0 : 1);
  if (commands == 0)
    return report_usage_error("probe", "nothing to do: give a probe definition, -l, -d, -V, -F or -D");
  if (commands > 1)
    return report_usage_error(
        "probe", "give one of --add, --del, --list, --line, --vars, --funcs, --definition at a time");
  auto fail = [&](const Error& error) {
    return quiet ? errno_exit_status(error) : report_errno_error("probe", error);
  };

  if (list) {
    auto text = pipeline::list_probes(list_filter, options.symbols);
    if (!text) return fail(text.error());
    std::fputs(text->c_str(), stdout);
    return 0;
  }
  if (!deletes.empty()) {
    std::string removed;
    for (const std::string& pattern : deletes) {
      auto text = pipeline::delete_probes(pattern);
      if (!text) return fail(text.error());
      removed += *text;
    }
    if (!quiet) std::fputs(removed.c_str(), stderr);
    return 0;
  }
  if (!line_spec.empty()) {
    auto text = pipeline::probe_source_lines(line_spec, options, source_dir);
    if (!text) return fail(text.error());
    std::fputs(text->c_str(), stdout);
    return 0;
  }
  if (!vars_spec.empty()) {
    Diagnostics diagnostics([quiet](const Diagnostics::Message& message) {
      if (!quiet) fmt::print(stderr, "Warning: {}\n", message.text);
    });
    auto text = pipeline::probe_variables(vars_spec, options, externs, diagnostics);
    if (!text) return fail(text.error());
    std::fputs(text->c_str(), stdout);
    return 0;
  }
  if (funcs) {
    if (!funcs_pattern.empty()) func_filters.insert(func_filters.begin(), funcs_pattern);
    auto text = pipeline::probe_functions(func_filters, options, !no_demangle);
    if (!text) return fail(text.error());
    std::fputs(text->c_str(), stdout);
    return 0;
  }
  if (!definitions_spec.empty()) {
    options.definitions_only = true;
    auto outcome = pipeline::add_probes({join(definitions_spec, " ")}, options);
    if (!outcome) return fail(outcome.error());
    std::fputs(outcome->definitions.c_str(), stdout);
    return 0;
  }
  auto outcome = pipeline::add_probes(adds, options);
  if (!outcome) return fail(outcome.error());
  if (!quiet)
    for (const std::string& warning : outcome->warnings) fmt::print(stderr, "Warning: {}\n", warning);
  if (verbose)
    for (const std::string& line : split(outcome->definitions, '\n'))
      if (!line.empty()) fmt::print(stderr, "Writing event: {}\n", line);
  if (!quiet) std::fputs(outcome->added_text.c_str(), stderr);
  return 0;
}

}  // namespace sonde::cli
