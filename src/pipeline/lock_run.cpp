#include "pipeline/lock_run.hpp"

#include <unistd.h>

#include "base/output_stream.hpp"
#include "kernel/tracefs.hpp"

namespace sonde::pipeline {

Result<std::vector<std::string>> lock_record_arguments() {
  std::vector<std::string> args = {"record", "-R", "-m", "1024", "-c", "1", "--synth", "task"};
  bool lockdep = true;
  for (const char* name : {"lock_acquire", "lock_acquired", "lock_contended", "lock_release"})
    if (!kernel::tracepoint_id("lock", name)) lockdep = false;
  if (lockdep) {
    for (const char* name : {"lock_acquire", "lock_acquired", "lock_contended", "lock_release"}) {
      args.emplace_back("-e");
      args.emplace_back(std::string("lock:") + name);
    }
    return args;
  }
  for (const char* name : {"contention_begin", "contention_end"})
    if (!kernel::tracepoint_id("lock", name))
      return failf("this kernel has neither lockdep's lock events nor lock:{}; nothing to record", name);
  for (const char* word :
       {"-e", "lock:contention_begin", "-e", "lock:contention_end", "--call-graph", "fp,8"})
    args.emplace_back(word);
  return args;
}

Result<void> run_lock(const LockRunOptions& options, Diagnostics& diagnostics) {
  auto contention = analysis::lock_contention(options.analysis, diagnostics);
  if (!contention) return tl::unexpected(contention.error());
  if (options.combine)
    contention->stats = analysis::combine_lock_stats(std::move(contention->stats), options.analysis.key);
  std::string text;
  switch (options.view) {
    case LockView::contention:
      output::append_lock_contention(*contention, options.text, text);
      break;
    case LockView::report:
      output::append_lock_report(*contention, options.text, text);
      break;
    case LockView::info_threads:
      output::append_lock_threads(*contention, text);
      break;
    case LockView::info_map:
      output::append_lock_map(*contention, text);
      break;
  }
  OutputStream out(STDOUT_FILENO, false, "stdout");
  if (auto written = out.write(text.data(), text.size()); !written) return written;
  return out.flush();
}

}  // namespace sonde::pipeline
