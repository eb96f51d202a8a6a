#include "cli/collapse_options.hpp"

namespace sonde::cli {

void add_collapse_options(CLI::App& app, analysis::CollapseOptions& options, bool& annotate_all,
                          const std::string& help_prefix) {
  app.add_flag("--pid", options.include_pid, help_prefix + "Include the PID with process names");
  app.add_flag("--tid", options.include_tid, help_prefix + "Include the PID and TID with process names");
  app.add_flag("--inline", options.show_inline,
               help_prefix + "Expand inline frames from the binaries' DWARF");
  app.add_flag("--context", options.show_context, help_prefix + "With --inline, add file:line to each name");
  app.add_flag("--kernel", options.annotate_kernel, help_prefix + "Annotate kernel functions with _[k]");
  app.add_flag("--jit", options.annotate_jit, help_prefix + "Annotate JIT functions with _[j]");
  app.add_flag("--all", annotate_all, help_prefix + "All annotations (--kernel --jit)");
  app.add_flag("--addrs", options.include_addrs,
               help_prefix + "Include raw addresses where symbols cannot be found");
}

void apply_annotate_all(analysis::CollapseOptions& options, bool annotate_all) {
  if (annotate_all) options.annotate_kernel = options.annotate_jit = true;
}

}  // namespace sonde::cli
