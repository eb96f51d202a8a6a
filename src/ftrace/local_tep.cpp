#include "ftrace/local_tep.hpp"

#include <traceevent/event-parse.h>

#include <string>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "format/blktrace_event.hpp"

namespace sonde::ftrace {

Result<std::unique_ptr<LocalTep>> LocalTep::build(const TraceMetadata& metadata,
                                                  std::string saved_cmdlines_path) {
  std::unique_ptr<LocalTep> local(new LocalTep);
  local->saved_cmdlines_path_ = std::move(saved_cmdlines_path);
  local->tep_ = tep_alloc();
  if (!local->tep_) return fail("cannot allocate a libtraceevent handle");
  tep_handle* tep = local->tep_;
  tep_set_long_size(tep, sizeof(long));
  tep_set_page_size(tep, static_cast<int>(metadata.page_size));
  tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
  tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
  std::string header_page = metadata.header_page;
  if (tep_parse_header_page(tep, header_page.data(), header_page.size(), sizeof(long)) != 0)
    return fail("libtraceevent could not parse events/header_page");
  for (const auto& format : metadata.ftrace_formats)
    tep_parse_event(tep, format.data(), format.size(), "ftrace");
  for (const auto& [system, formats] : metadata.event_formats)
    for (const auto& format : formats)
      if (tep_parse_event(tep, format.data(), format.size(), system.c_str()) != 0)
        return failf("libtraceevent could not parse the format of an event of {}", system);
  tracedat::add_blktrace_event(tep);  // the blk tracer's records, as trace-cmd report prints them
  if (!metadata.kallsyms.empty()) tep_parse_kallsyms(tep, metadata.kallsyms.c_str());
  if (!metadata.printk_formats.empty()) tep_parse_printk_formats(tep, metadata.printk_formats.c_str());
  // No saved_cmdlines up front: it can still name a recycled pid after an old task; learn_task
  // asks /proc first as each pid appears, and saved_cmdlines only for tasks already gone.
  local->plugins_ = tep_load_plugins(tep);
  return local;
}

LocalTep::~LocalTep() {
  if (plugins_) tep_unload_plugins(plugins_, tep_);
  if (tep_) tep_free(tep_);
}

void LocalTep::learn_task(int pid) {
  if (pid <= 0 || tep_is_pid_registered(tep_, pid)) return;
  if (auto comm = read_file("/proc/" + std::to_string(pid) + "/comm")) {
    tep_register_comm(tep_, std::string(trim(*comm)).c_str(), pid);
    return;
  }
  if (auto cmdlines = read_file(saved_cmdlines_path_))
    for (const auto& line : split(*cmdlines, '\n')) {
      auto space = line.find(' ');
      if (space != std::string::npos &&
          parse_uint(std::string_view(line).substr(0, space), 10) == static_cast<unsigned>(pid))
        tep_register_comm(tep_, line.substr(space + 1).c_str(), pid);
    }
}

}  // namespace sonde::ftrace
