// sonde ftrace stat: each CPU's ring-buffer statistics.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/event_options.hpp"
#include "cli/ftrace/ftrace_commands.hpp"
#include "ftrace/buffer_stats.hpp"
#include "ftrace/instance.hpp"

namespace sonde::cli {

int ftrace_stat(int argc, char** argv) {
  std::string instance_name;
  CLI::App app{"Per-CPU buffer statistics: entries, overrun, dropped", "sonde ftrace stat"};
  app.add_option("-B,--instance", instance_name, "an instance's buffers (default: the top level)");
  if (auto exit_code = parse_command_line(app, argc, argv, "ftrace stat")) return *exit_code;
  if (!app.remaining().empty())
    return report_error({fmt::format("sonde ftrace stat: unexpected '{}'", app.remaining().front()), Error::Kind::usage});
  auto instance = instance_name.empty() ? ftrace::Instance::top() : ftrace::Instance::existing(instance_name);
  if (!instance) return report_error(instance.error().with_context("sonde ftrace stat"));
  auto cpus = ftrace::buffer_cpus(*instance);
  if (!cpus) return report_error(cpus.error().with_context("sonde ftrace stat"));
  auto size = instance->read("buffer_size_kb");
  fmt::print("{} buffer, {} KB per CPU\n", instance->is_top() ? "top-level" : "instance " + instance->name(),
             size ? std::string(size->substr(0, size->find('\n'))) : "?");
  fmt::print("{:>4} {:>10} {:>10} {:>14} {:>10} {:>10} {:>10} {:>16} {:>16}\n", "CPU", "entries", "overrun",
             "commit_overrun", "bytes", "dropped", "read", "oldest_event_ts", "now_ts");
  for (int cpu : *cpus) {
    auto stats = ftrace::read_cpu_stats(*instance, cpu);
    if (!stats) return report_error(stats.error().with_context("sonde ftrace stat"));
    fmt::print("{:>4} {:>10} {:>10} {:>14} {:>10} {:>10} {:>10} {:>16} {:>16}\n", cpu, stats->entries, stats->overrun,
               stats->commit_overrun, stats->bytes, stats->dropped_events, stats->read_events, stats->oldest_event_ts,
               stats->now_ts);
  }
  return 0;
}

}  // namespace sonde::cli
