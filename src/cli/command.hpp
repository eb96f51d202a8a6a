#pragma once
// Each command is one cmd_<name>.cpp whose entry point is declared here; the one table of names,
// summaries and entry points, commands(), is in main.cpp.
#include <string_view>
#include <vector>

namespace sonde::cli {

struct Command {
  std::string_view name;
  std::string_view summary;
  // argv[0] is the command name; returns the process exit status.
  int (*run)(int argc, char** argv);
};

const std::vector<Command>& commands();

int cmd_list(int argc, char** argv);
int cmd_stat(int argc, char** argv);
int cmd_record(int argc, char** argv);
int cmd_report(int argc, char** argv);
int cmd_script(int argc, char** argv);
int cmd_annotate(int argc, char** argv);
int cmd_buildid_list(int argc, char** argv);
int cmd_evlist(int argc, char** argv);
int cmd_archive(int argc, char** argv);
int cmd_buildid_cache(int argc, char** argv);
int cmd_collapse(int argc, char** argv);
int cmd_flamegraph(int argc, char** argv);
int cmd_diff(int argc, char** argv);
int cmd_heatmap(int argc, char** argv);
int cmd_ftrace(int argc, char** argv);
int cmd_probe(int argc, char** argv);
int cmd_sched(int argc, char** argv);
int cmd_kmem(int argc, char** argv);
int cmd_blk(int argc, char** argv);
int cmd_mem(int argc, char** argv);
int cmd_c2c(int argc, char** argv);
int cmd_lock(int argc, char** argv);
int cmd_inject(int argc, char** argv);
int cmd_trace(int argc, char** argv);
int cmd_data(int argc, char** argv);
int cmd_top(int argc, char** argv);

}  // namespace sonde::cli
