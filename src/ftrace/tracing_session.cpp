#include "ftrace/tracing_session.hpp"

#include <signal.h>

#include <algorithm>
#include <cerrno>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "ftrace/machine_state.hpp"

namespace sonde::ftrace {

namespace {

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::string tracer_facility(std::string_view tracer) {
  if (tracer == "function_graph") return " (CONFIG_FUNCTION_GRAPH_TRACER)";
  if (tracer == "function") return " (CONFIG_FUNCTION_TRACER)";
  if (tracer == "blk") return " (CONFIG_BLK_DEV_IO_TRACE)";
  return "";
}

// The text that puts a top-level file back as it was read: the kernel shows some files
// differently from what it takes.
std::string restoring_text(std::string_view file, std::string_view old) {
  std::string text(trim(old));
  if (file == "trace_clock") {
    auto open = text.find('['), close = text.find(']');
    if (open != std::string::npos && close != std::string::npos)
      return text.substr(open + 1, close - open - 1);
  }
  if (file == "buffer_size_kb") {
    // "7 (expanded: 1408)": a boot-time buffer that grows to 1408 KB on first use. Tracing here
    // has used it, so the size the next user gets is the expanded one.
    if (auto expanded = text.find("(expanded: "); expanded != std::string::npos) {
      auto value = text.substr(expanded + 11);
      return value.substr(0, value.find(')'));
    }
  }
  if (text == "no pid") return "";
  return text;
}

// The kernel's own words after it rejected a filter: the filter file then holds the filter,
// a caret line and "parse_error: ...".
std::string filter_complaint(const Instance& instance, const std::string& filter_file) {
  auto text = instance.read(filter_file);
  if (!text) return "";
  auto lines = split(trim(*text), '\n');
  return lines.empty() ? "" : std::string(trim(lines.back()));
}

std::string last_error_log_line(const Instance& instance) {
  auto text = instance.read("error_log");
  if (!text) return "";
  auto lines = split(trim(*text), '\n');
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!trim(*it).empty() && it->find('^') == std::string::npos) return std::string(trim(*it));
  return "";
}

std::string combined_filter(const std::vector<std::string>& filters) {
  if (filters.size() == 1) return filters.front();
  std::vector<std::string> parts;
  for (const auto& filter : filters) parts.push_back("(" + filter + ")");
  return join(parts, " && ");
}

}  // namespace

std::vector<std::string> available_tracers(const Instance& instance) {
  auto text = instance.read("available_tracers");
  std::vector<std::string> tracers;
  if (!text) return tracers;
  for (auto& word : split(trim(*text), ' '))
    if (!word.empty()) tracers.push_back(std::string(trim(word)));
  return tracers;
}

Result<std::unique_ptr<TracingSession>> TracingSession::set_up(const TracingRequest& request,
                                                               Diagnostics& diagnostics) {
  std::unique_ptr<TracingSession> session(new TracingSession);
  // On any error below the session's destructor puts back what was already changed.
  if (auto chosen = session->choose_instance(request, diagnostics); !chosen)
    return tl::unexpected(chosen.error());
  if (auto done = session->set_buffer_options(request); !done) return tl::unexpected(done.error());
  if (auto done = session->set_block_devices(request); !done) return tl::unexpected(done.error());
  if (auto done = session->set_tracer(request, diagnostics); !done) return tl::unexpected(done.error());
  if (auto done = session->set_function_filters(request); !done) return tl::unexpected(done.error());
  if (auto done = session->select_and_filter_events(request); !done) return tl::unexpected(done.error());
  return session;
}

TracingSession::~TracingSession() {
  if (!torn_down_) (void)tear_down();
}

Result<void> TracingSession::choose_instance(const TracingRequest& request, Diagnostics& diagnostics) {
  std::string tracer = request.tracer;
  if (tracer.empty() && !request.graph_functions.empty()) tracer = "function_graph";
  if (tracer.empty() && (!request.function_filters.empty() || !request.notrace_filters.empty()))
    tracer = "function";
  if (tracer == "nop") tracer.clear();
  tracer_ = tracer;
  auto top = Instance::top();
  if (!top) return tl::unexpected(top.error());
  for (const auto& name : instances_left_behind(*top))
    diagnostics.warningf(
        "tracefs instance {} was left by a sonde run that was killed (its process is gone); its events may "
        "still be enabled: 'sonde ftrace reset' removes it",
        name);
  if (!tracer.empty()) {
    auto top_tracers = available_tracers(*top);
    if (!contains(top_tracers, tracer))
      return failf("the {} tracer is not available on this kernel{} (available: {})", tracer,
                   tracer_facility(tracer), join(top_tracers, " "));
  }
  auto own = Instance::create_own();
  if (!own) return tl::unexpected(own.error());
  if (tracer.empty() || contains(available_tracers(*own), tracer)) {
    instance_ = std::make_unique<Instance>(std::move(*own));
  } else {
    // This tracer runs only at the top level: borrow it, if no other tool is using it.
    if (auto removed = own->remove(); !removed) return tl::unexpected(removed.error());
    auto current = top->read("current_tracer");
    auto enabled = top->read("set_event");
    if (current && trim(*current) != "nop")
      return failf(
          "the {} tracer needs the top-level buffer, which is in use (current_tracer is {}); "
          "'sonde ftrace reset' frees it",
          tracer, trim(*current));
    if (enabled && !trim(*enabled).empty())
      return failf(
          "the {} tracer needs the top-level buffer, which is in use (events enabled in "
          "set_event); 'sonde ftrace reset' frees it",
          tracer);
    instance_ = std::make_unique<Instance>(std::move(*top));
  }
  if (auto off = save_and_write("tracing_on", "0"); !off) return off;
  if (instance_->is_top()) {
    // Start from an empty buffer: what an earlier user left there is not part of this trace.
    if (int err = write_control_file(instance_->path("trace"), "", false); err != 0)
      return failf("clearing {} failed: {}", instance_->path("trace"), errno_name(err));
  }
  return {};
}

Result<void> TracingSession::save_and_write(const std::string& file, std::string_view text) {
  if (instance_->is_top()) {
    auto old = instance_->read(file);
    if (!old) return tl::unexpected(old.error());
    std::string restore = restoring_text(file, *old);
    const Instance* instance = instance_.get();
    undo_.add([instance, file, restore]() -> Result<void> { return instance->write(file, restore); });
  }
  if (auto written = instance_->write(file, text); !written) return tl::unexpected(written.error());
  return {};
}

Result<void> TracingSession::set_buffer_options(const TracingRequest& request) {
  // Readers are woken when a buffer is this full (the kernel's default is half): waking earlier
  // leaves room for a burst while a reader waits for a CPU on a busy machine.
  if (!instance_->is_top() && path_exists(instance_->path("buffer_percent")))
    if (auto done = instance_->write("buffer_percent", "25"); !done) return tl::unexpected(done.error());
  if (request.buffer_kb > 0)
    if (auto done = save_and_write("buffer_size_kb", std::to_string(request.buffer_kb)); !done) return done;
  if (!request.clock.empty()) {
    auto clocks = instance_->read("trace_clock");
    if (!clocks) return tl::unexpected(clocks.error());
    std::vector<std::string> names;
    for (auto& word : split(trim(*clocks), ' '))
      if (!word.empty()) names.push_back(word.front() == '[' ? word.substr(1, word.size() - 2) : word);
    if (!contains(names, request.clock))
      return failf("unknown trace clock '{}' (this kernel has: {})", request.clock, join(names, " "));
    if (auto done = save_and_write("trace_clock", request.clock); !done) return done;
  }
  if (!request.cpumask.empty())
    if (auto done = save_and_write("tracing_cpumask", request.cpumask); !done)
      return failf("the kernel rejected cpumask '{}' (-M takes a hex mask such as 3 for CPUs 0-1)",
                   request.cpumask);
  if (request.stacktrace)
    if (auto done = save_and_write("options/stacktrace", "1"); !done) return done;
  if (!request.pids.empty()) {
    std::vector<std::string> pids;
    for (pid_t pid : request.pids) {
      if (::kill(pid, 0) != 0 && errno == ESRCH) return failf("no process with id {} (-P)", pid);
      pids.push_back(std::to_string(pid));
    }
    if (auto done = save_and_write("set_event_pid", join(pids, " ")); !done) return done;
    if (request.follow_children)
      if (auto done = save_and_write("options/event-fork", "1"); !done) return done;
  }
  return {};
}

Result<void> TracingSession::set_block_devices(const TracingRequest& request) {
  if (tracer_ != "blk") {
    if (!request.block_devices.empty())
      return fail_usage("--device names block devices for the blk tracer; add -p blk");
    return {};
  }
  if (request.block_devices.empty())
    return fail_usage("-p blk traces the block devices named with --device (e.g. --device loop0)");
  for (const auto& device : request.block_devices) {
    std::string name(path_basename(device));
    std::string enable = "/sys/class/block/" + name + "/trace/enable";
    if (!path_exists(enable))
      return failf("no block device '{}' with blktrace support ({} is missing)", device, enable);
    auto old = read_file(enable);
    std::string restore = old ? std::string(trim(*old)) : "0";
    if (int err = write_control_file(enable, "1", false); err != 0)
      return failf("enabling blktrace on {} failed: {} on {}", name, errno_name(err), enable);
    undo_.add([enable, restore]() -> Result<void> {
      if (int err = write_control_file(enable, restore, false); err != 0)
        return failf("restoring {} failed: {}", enable, errno_name(err));
      return {};
    });
  }
  return {};
}

Result<void> TracingSession::set_tracer(const TracingRequest& request, Diagnostics& diagnostics) {
  if (tracer_.empty()) return {};
  auto written = instance_->write("current_tracer", tracer_);
  int err = written ? 0 : written.error().sys_errno;
  if (err == EPERM || err == EACCES) {
    std::string line = fmt::format("{} tracer refused by the kernel (lockdown?): {} on current_tracer",
                                   tracer_, errno_name(err));
    tracer_.clear();
    if (request.events.empty()) return fail(line);
    diagnostics.note(line);
    return {};
  }
  if (err != 0)
    return failf("setting the {} tracer failed: {} on {}", tracer_, errno_name(err),
                 instance_->path("current_tracer"));
  if (instance_->is_top()) {
    const Instance* instance = instance_.get();
    undo_.add([instance]() -> Result<void> { return instance->write("current_tracer", "nop"); });
  }
  if (tracer_.starts_with("function") && !request.pids.empty()) {
    std::vector<std::string> pids;
    for (pid_t pid : request.pids) pids.push_back(std::to_string(pid));
    if (auto done = save_and_write("set_ftrace_pid", join(pids, " ")); !done) return done;
    if (request.follow_children)
      if (auto done = save_and_write("options/function-fork", "1"); !done) return done;
  }
  return {};
}

Result<void> TracingSession::set_function_filters(const TracingRequest& request) {
  if (!tracer_.starts_with("function")) return {};
  auto add_all = [&](const char* file, const std::vector<std::string>& patterns,
                     const char* option) -> Result<void> {
    if (patterns.empty()) return {};
    if (!path_exists(instance_->path(file)))
      return failf("{} needs {}, which this kernel does not have", option, file);
    if (instance_->is_top()) {
      const Instance* instance = instance_.get();
      std::string name = file;
      undo_.add([instance, name]() -> Result<void> { return instance->write(name, ""); });
    }
    for (const auto& pattern : patterns) {
      auto added = instance_->append(file, pattern);
      int err = added ? 0 : added.error().sys_errno;
      if (err == EINVAL)
        return failf("no traceable function matches '{}' ({}); 'sonde ftrace list -f' lists them", pattern,
                     option);
      if (err == EPERM || err == EACCES)
        return failf("{} refused by the kernel (lockdown?): {} on {}", option, errno_name(err), file);
      if (err != 0) return failf("adding '{}' to {} failed: {}", pattern, file, errno_name(err));
    }
    return {};
  };
  if (auto done = add_all("set_ftrace_filter", request.function_filters, "-l"); !done) return done;
  if (auto done = add_all("set_ftrace_notrace", request.notrace_filters, "-n"); !done) return done;
  return add_all("set_graph_function", request.graph_functions, "-g");
}

Result<void> TracingSession::select_and_filter_events(const TracingRequest& request) {
  if (request.events.empty()) return {};
  auto catalogue = read_event_catalogue();
  if (!catalogue) return tl::unexpected(catalogue.error());
  for (const auto& event_request : request.events) {
    auto selection = select_events(event_request.spec, *catalogue);
    if (!selection) return tl::unexpected(selection.error());
    for (const auto& event : selection->events)
      if (std::find(events_.begin(), events_.end(), event) == events_.end()) events_.push_back(event);
    if (!event_request.filters.empty()) {
      std::string filter = combined_filter(event_request.filters);
      std::vector<std::string> files;
      for (const auto& system : selection->whole_systems) files.push_back("events/" + system + "/filter");
      for (const auto& event : selection->events)
        if (!contains(selection->whole_systems, event.system))
          files.push_back("events/" + event.system + "/" + event.name + "/filter");
      for (const auto& file : files) {
        if (auto written = instance_->write(file, filter); !written) {
          int err = written.error().sys_errno;
          std::string why = filter_complaint(*instance_, file);
          return failf("filter '{}' rejected for {}: {}", filter, event_request.spec,
                       why.empty() ? errno_name(err) : why);
        }
        if (instance_->is_top()) {
          const Instance* instance = instance_.get();
          undo_.add([instance, file]() -> Result<void> { return instance->write(file, "0"); });
        }
      }
      // A subsystem's filter is taken even when none of its events has the fields; it then
      // filters nothing, so say so instead of tracing everything.
      for (const auto& system : selection->whole_systems) {
        bool applied = false;
        std::string complaint;
        for (const auto& event : selection->events) {
          if (event.system != system) continue;
          std::string file = "events/" + system + "/" + event.name + "/filter";
          auto text = instance_->read(file);
          if (text && trim(*text) != "none" && text->find("parse_error") == std::string::npos) applied = true;
          if (complaint.empty()) complaint = filter_complaint(*instance_, file);
        }
        if (!applied) return failf("filter '{}' rejected for {}: {}", filter, event_request.spec, complaint);
      }
    }
    for (const auto& trigger : event_request.triggers) {
      if (trigger.starts_with("hist") &&
          !path_exists(instance_->path("events/" + selection->events.front().system + "/" +
                                       selection->events.front().name + "/hist")))
        return failf("hist triggers are not available on this kernel (CONFIG_HIST_TRIGGERS): '{}'", trigger);
      if (trigger.starts_with("snapshot") && !path_exists(instance_->path("snapshot")))
        return failf("the snapshot trigger is not available on this kernel (CONFIG_TRACER_SNAPSHOT): '{}'",
                     trigger);
    }
    selections_.push_back(std::move(*selection));
    requests_.push_back(event_request);
  }
  return {};
}

Result<void> TracingSession::start() {
  auto cpus = buffer_cpus(*instance_);
  if (!cpus) return tl::unexpected(cpus.error());
  stats_at_start_.clear();
  for (int cpu : *cpus)
    if (auto stats = read_cpu_stats(*instance_, cpu)) stats_at_start_.emplace_back(cpu, *stats);
  if (auto on = instance_->write("tracing_on", "1"); !on) return tl::unexpected(on.error());
  for (const auto& selection : selections_) {
    std::vector<std::string> files;
    for (const auto& system : selection.whole_systems) files.push_back("events/" + system + "/enable");
    for (const auto& event : selection.events)
      if (!contains(selection.whole_systems, event.system))
        files.push_back("events/" + event.system + "/" + event.name + "/enable");
    for (const auto& file : files) {
      if (instance_->is_top()) {
        const Instance* instance = instance_.get();
        undo_.add([instance, file]() -> Result<void> { return instance->write(file, "0"); });
      }
      if (auto enabled = instance_->write(file, "1"); !enabled)
        return tl::unexpected(enabled.error().with_context("enabling " + selection.spec));
    }
  }
  return install_triggers();
}

Result<void> TracingSession::install_triggers() {
  for (size_t i = 0; i < selections_.size(); ++i) {
    for (const auto& trigger : requests_[i].triggers) {
      for (const auto& event : selections_[i].events) {
        std::string file = "events/" + event.system + "/" + event.name + "/trigger";
        if (auto added = instance_->append(file, trigger); !added) {
          int err = added.error().sys_errno;
          std::string why = last_error_log_line(*instance_);
          return failf("trigger '{}' rejected for {}:{}: {}", trigger, event.system, event.name,
                       why.empty() ? errno_name(err) : why);
        }
        if (instance_->is_top()) {
          const Instance* instance = instance_.get();
          std::string removal = "!" + trigger;
          undo_.add([instance, file, removal]() -> Result<void> { return instance->append(file, removal); });
        }
      }
    }
  }
  return {};
}

void TracingSession::stop() {
  if (instance_) (void)instance_->write("tracing_on", "0");
}

std::vector<Error> TracingSession::tear_down() {
  torn_down_ = true;
  if (!instance_) return {};
  stop();
  auto failures = undo_.undo_all();
  if (auto removed = instance_->remove(); !removed) failures.push_back(removed.error());
  return failures;
}

}  // namespace sonde::ftrace
