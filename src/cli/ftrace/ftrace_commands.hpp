#pragma once
// `sonde ftrace SUB ...`: one file per subcommand, dispatched by cmd_ftrace.cpp.
namespace sonde::cli {

int ftrace_list(int argc, char** argv);      // Tracers, events, filterable functions, options
int ftrace_record(int argc, char** argv);    // Trace into a trace.dat
int ftrace_report(int argc, char** argv);    // Print a trace.dat as trace-cmd report does
int ftrace_stream(int argc, char** argv);    // Print events live from the per-CPU buffers
int ftrace_show(int argc, char** argv);      // The machine's current tracing state
int ftrace_reset(int argc, char** argv);     // Restore tracing defaults
int ftrace_marker(int argc, char** argv);    // Write text to trace_marker
int ftrace_snapshot(int argc, char** argv);  // Take and print a snapshot
int ftrace_stat(int argc, char** argv);      // Per-CPU buffer statistics

}  // namespace sonde::cli
