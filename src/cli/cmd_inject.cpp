// sonde inject: perf inject's copy of a recording with build-ids put in (-b, --buildid-all) or
// JIT-compiled functions made into files (-j), through pipeline/inject_run. Its other jobs are
// refused with the reason.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "kernel/tracefs.hpp"
#include "pipeline/inject_run.hpp"

namespace sonde::cli {

int cmd_inject(int argc, char** argv) {
  pipeline::InjectOptions options;
  bool sched_stat = false, jit = false, verbose = false, force = false, strip = false;
  std::string itrace;
  CLI::App app{"Copy a recording with build-ids put in (perf inject)", "sonde inject"};
  app.add_option("-i,--input", options.input, "input file name (default: standard input)");
  app.add_option("-o,--output", options.output, "output file name (default: standard output)");
  app.add_flag("-b,--build-ids", options.build_ids, "inject build-ids into the output stream");
  app.add_flag("--buildid-all", options.buildid_all, "inject build-ids of all DSOs into the output stream");
  app.add_flag("-s,--sched-stat", sched_stat,
               "merge sched-stat and sched-switch for getting events where and how long tasks slept");
  app.add_flag("-j,--jit", jit, "merge jitdump files into perf.data file");
  value_attached_only(app.add_option("--itrace", itrace, "instruction tracing options")->expected(0, 1));
  app.add_flag("--strip", strip, "strip non-synthesized events (use with --itrace)");
  app.add_flag("-v,--verbose", verbose, "be more verbose");
  app.add_flag("-f,--force", force, "don't complain, do it");
  if (auto exit_code = parse_command_line(app, argc, argv, "inject", AfterOptions::nothing))
    return *exit_code;
  if (app.count("--itrace") || strip)
    return report_usage_error("inject",
                              "--itrace and --strip synthesize events from instruction traces (Intel PT, "
                              "CoreSight), which sonde does not decode");
  if (sched_stat) {
    if (!kernel::tracepoint_id("sched", "sched_stat_sleep"))
      return report_usage_error("inject",
                                "-s merges sched:sched_stat_* samples into sched_switch, and this kernel has "
                                "no sched_stat_* tracepoints (it is built without CONFIG_SCHEDSTATS)");
    return report_usage_error("inject", "-s (merging sched_stat_* into sched_switch) is not there yet");
  }
  options.jit = jit;
  if (options.build_ids && options.buildid_all)
    return report_usage_error("inject", "-b and --buildid-all go one at a time");
  Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde inject: ", verbose);
  auto done = pipeline::run_inject(options, diagnostics);
  if (!done) return report_error("inject", done.error());
  return 0;
}

}  // namespace sonde::cli
