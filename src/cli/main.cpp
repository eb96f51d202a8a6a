// sonde: one binary, perf-style subcommands.
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <string_view>

#include "capture/signals.hpp"
#include "cli/command.hpp"

namespace sonde::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"list", "List available events", cmd_list},
      {"record", "Sample a command or the system into perf.data", cmd_record},
      {"stat", "Run a command and count its events", cmd_stat},
      {"report", "Read perf.data and display the profile", cmd_report},
      {"script", "Read perf.data and print every event", cmd_script},
      {"annotate", "Read perf.data and show each sampled symbol's code with its samples", cmd_annotate},
      {"top", "Profile the system live, hottest functions first", cmd_top},
      {"buildid-list", "List the build-ids in a perf.data file", cmd_buildid_list},
      {"evlist", "List the events in a perf.data file", cmd_evlist},
      {"archive", "Pack the files a perf.data file needs to report on another machine", cmd_archive},
      {"buildid-cache", "Manage the build-id cache (~/.debug)", cmd_buildid_cache},
      {"collapse", "Fold stacks for flame graphs", cmd_collapse},
      {"flamegraph", "Draw a flame graph (SVG or HTML)", cmd_flamegraph},
      {"diff", "Compare two or more profiles", cmd_diff},
      {"heatmap", "Draw a latency or sub-second offset heat map", cmd_heatmap},
      {"ftrace", "The kernel's function tracer and trace events, trace-cmd style", cmd_ftrace},
      {"probe", "Define new dynamic tracepoints (uprobes, SDT markers)", cmd_probe},
      {"trace", "Trace system calls: each call with its arguments, or a summary (perf trace, strace -c)",
       cmd_trace},
      {"sched", "Scheduler latency, timeline and map from sched tracepoints (perf sched)", cmd_sched},
      {"inject", "Copy a recording with build-ids put in (perf inject)", cmd_inject},
      {"lock", "Kernel lock contention from lock tracepoints (perf lock)", cmd_lock},
      {"kmem", "The slab and page allocators' statistics from kmem tracepoints (perf kmem)", cmd_kmem},
      {"mem", "Sample memory accesses with the CPU's memory-sampling unit (perf mem)", cmd_mem},
      {"c2c", "Sample loads and stores for cache-line sharing analysis (perf c2c)", cmd_c2c},
      {"blk", "Block I/O traces: record (blktrace), parse (blkparse), trace (btrace)", cmd_blk},
      {"data", "Convert a perf.data file to other formats (perf data convert)", cmd_data},
  };
  return table;
}

namespace {
void print_usage(std::FILE* out) {
  fmt::print(out, "\n usage: sonde [--version] [--help] COMMAND [ARGS]\n\n The sonde commands are:\n");
  for (const auto& command : commands()) fmt::print(out, "   {:<14}{}\n", command.name, command.summary);
  fmt::print(out, "\n See 'sonde COMMAND --help' for a command's options.\n");
}
}  // namespace

}  // namespace sonde::cli

int main(int argc, char** argv) {
  using namespace sonde::cli;
  sonde::capture::take_stop_signals();
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
      std::strcmp(argv[1], "help") == 0) {
    print_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 1 : 0;
  }
  if (std::strcmp(argv[1], "--version") == 0 || std::strcmp(argv[1], "version") == 0) {
    fmt::print("sonde version 0.1.0\n");
    return 0;
  }
  std::string_view name = argv[1];
  for (const auto& command : commands()) {
    if (command.name == name) return command.run(argc - 1, argv + 1);
  }
  fmt::print(stderr, "sonde: '{}' is not a sonde command. See 'sonde --help'.\n", name);
  return 1;
}
