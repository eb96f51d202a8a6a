#pragma once
// A libtraceevent handle describing this machine's events, for formatting live records: the
// ring buffer's page header, the formats of the events being traced and of ftrace's own, kallsyms,
// printk formats, task names, and libtraceevent's plugins (as trace-cmd report loads them).
#include <memory>
#include <string>

#include "base/error.hpp"
#include "ftrace/trace_metadata.hpp"

struct tep_handle;
struct tep_plugin_list;

namespace sonde::ftrace {

class LocalTep {
 public:
  // `saved_cmdlines_path`: where to look again for the names of tasks that are already gone.
  static Result<std::unique_ptr<LocalTep>> build(const TraceMetadata& metadata,
                                                 std::string saved_cmdlines_path);
  ~LocalTep();
  tep_handle* handle() const { return tep_; }
  // Names a task the kernel's saved_cmdlines did not know when the handle was built: from /proc
  // while it lives, else from the kernel's saved_cmdlines as they are now.
  void learn_task(int pid);

 private:
  LocalTep() = default;
  tep_handle* tep_ = nullptr;
  tep_plugin_list* plugins_ = nullptr;
  std::string saved_cmdlines_path_;
};

}  // namespace sonde::ftrace
