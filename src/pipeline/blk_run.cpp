#include "pipeline/blk_run.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include <map>
#include <memory>

#include "analysis/blk/blk_accounting.hpp"
#include "base/file.hpp"
#include "base/strings.hpp"
#include "capture/signals.hpp"
#include "format/blktrace_event.hpp"
#include "format/blktrace_file.hpp"
#include "ftrace/stream_run.hpp"
#include "output/blk/blkparse_text.hpp"
#include "pipeline/ftrace_runs.hpp"
#include "tracedat/reader.hpp"
#include "tracedat/record_merger.hpp"

namespace sonde::pipeline {

namespace {

std::string device_label(uint32_t device) {
  return fmt::format("{},{}", format::blk_major(device), format::blk_minor(device));
}

// The kernel's name for a task; "<...>" when the trace did not keep it.
std::string task_name(tep_handle* tep, int pid) {
  const char* comm = tep_data_comm_from_pid(tep, pid);
  return comm ? comm : "<...>";
}

ftrace::TracingRequest blk_tracing_request(const BlkRecordOptions& options) {
  ftrace::TracingRequest request;
  request.tracer = "blk";
  request.block_devices = options.devices;
  request.buffer_kb = options.buffer_kb;
  return request;
}

Result<std::vector<std::string>> traced_command(const BlkRecordOptions& options) {
  if (options.devices.empty()) return fail_usage("no device to trace; name one with -d (e.g. -d /dev/sda)");
  if (options.seconds > 0 && !options.command.empty())
    return fail_usage("-w limits a trace without a command; give one or the other");
  if (options.seconds > 0) return std::vector<std::string>{"sleep", fmt::format("{}", options.seconds)};
  return options.command;
}

// Each device's traces as blktrace's per-CPU streams, from the blk tracer's records of a trace.dat.
struct DeviceStreams {
  std::map<uint32_t, format::BlktraceStreams> devices;
  uint64_t records = 0;
};

Result<DeviceStreams> read_blk_records(const std::string& path, Diagnostics& diagnostics) {
  auto reader = tracedat::TraceDatReader::open(path);
  if (!reader) return tl::unexpected(reader.error());
  tep_handle* tep = (*reader)->tep();
  int blk_id = tracedat::blktrace_event_id(tep);
  DeviceStreams streams;
  if (blk_id < 0) return streams;
  tracedat::RecordMerger merger(**reader);
  size_t buffer = 0;
  while (const tep_record* record = merger.next(buffer)) {
    if (buffer != 0 || tep_data_type(tep, const_cast<tep_record*>(record)) != blk_id) continue;
    auto trace = tracedat::blk_trace_from_record(record->data, record->size,
                                                 (*reader)->adjust_timestamp(record->ts), record->cpu);
    if (!trace) continue;
    ++streams.records;
    uint32_t device = trace->device;
    streams.devices[device].add(std::move(*trace),
                                [tep](uint32_t pid) { return task_name(tep, static_cast<int>(pid)); });
  }
  for (const auto& problem : merger.problems()) diagnostics.warning(problem);
  return streams;
}

// A blktrace file as a source of traces; a last trace cut short is said once, at the end.
class BlktraceFileSource : public analysis::BlkTraceSource {
 public:
  BlktraceFileSource(format::BlktraceReader reader, Diagnostics& diagnostics)
      : reader_(std::move(reader)), diagnostics_(diagnostics) {}
  Result<bool> next(format::BlkTrace& trace) override {
    auto got = reader_.next(trace);
    if (got && !*got && !reader_.cut_short().empty() && !said_)
      diagnostics_.warning(reader_.cut_short() + "; the traces before it are read"), said_ = true;
    return got;
  }

 private:
  format::BlktraceReader reader_;
  Diagnostics& diagnostics_;
  bool said_ = false;
};

// Prints the lines and the summary; returns whether driver data was read past (its note goes
// after the "Input file" lines when those come last).
Result<bool> print_parse(std::vector<analysis::BlkInput>& inputs, bool summary, std::FILE* out,
                         Diagnostics& diagnostics) {
  fmt::memory_buffer text;
  std::string warning;
  auto result = analysis::parse_blk_inputs(
      inputs,
      [&](const analysis::BlkParsedTrace& parsed) {
        output::append_blkparse_line(parsed, text, warning);
        if (!warning.empty()) {
          diagnostics.warning(warning);
          warning.clear();
        }
        if (text.size() > (1 << 16)) {
          std::fwrite(text.data(), 1, text.size(), out);
          text.clear();
        }
      },
      [&](const std::string& line) { diagnostics.warning(line); });
  std::fwrite(text.data(), 1, text.size(), out);
  if (!result) return tl::unexpected(result.error());
  if (summary) {
    std::string summary_text = output::format_blkparse_summary(*result);
    std::fwrite(summary_text.data(), 1, summary_text.size(), out);
  }
  return result->saw_driver_data;
}

}  // namespace

Result<BlkRecordOutcome> blk_record(const BlkRecordOptions& options, Diagnostics& diagnostics) {
  auto command = traced_command(options);
  if (!command) return tl::unexpected(command.error());
  // Held until the files are written, so a second Ctrl-C cannot leave them half done.
  capture::BlockedSignals signals;
  auto in_directory = [&](const std::string& name) {
    return options.directory.empty() ? name : options.directory + "/" + name;
  };
  // The blk tracer's pages go through a trace.dat beside the output, removed at the end.
  std::string stem = in_directory(options.output.empty() ? std::string(path_basename(options.devices.front()))
                                                         : options.output);
  std::string trace_dat =
      fmt::format("{}/.{}.sonde-blk.{}.dat", path_directory(stem), path_basename(stem), ::getpid());
  FtraceRecordOptions record{blk_tracing_request(options), *command, trace_dat};
  auto recorded = ftrace_record_to_trace_dat(record, diagnostics);
  if (!recorded) return tl::unexpected(recorded.error());
  auto streams = read_blk_records(trace_dat, diagnostics);
  ::unlink(trace_dat.c_str());
  if (!streams) return tl::unexpected(streams.error());

  BlkRecordOutcome outcome;
  outcome.workload_status = recorded->workload_status;
  for (const auto& cpu : recorded->cpus) outcome.lost += cpu.overrun + cpu.dropped;
  size_t cpu_count = recorded->cpus.size();
  // blktrace writes NAME.blktrace.CPU for every CPU; NAME is the device's name unless -o gave one,
  // and with -o every device's traces share the files.
  std::map<std::string, std::vector<std::string>> files;  // NAME -> each CPU's bytes
  auto device_file_name = [&](uint32_t device) -> std::string {
    if (!options.output.empty()) return options.output;
    for (const auto& name : options.devices) {
      struct stat st {};
      std::string path = name.find('/') == std::string::npos ? "/dev/" + name : name;
      if (::stat(path.c_str(), &st) == 0 && S_ISBLK(st.st_mode) &&
          ((major(st.st_rdev) << 20) | minor(st.st_rdev)) == device)
        return std::string(path_basename(name));
    }
    return device_label(device);
  };
  for (const auto& name : options.devices)
    if (options.output.empty()) files.try_emplace(std::string(path_basename(name)));
  if (!options.output.empty()) files.try_emplace(options.output);
  for (auto& [device, device_streams] : streams->devices) {
    auto& cpus = files[device_file_name(device)];
    cpus.resize(std::max(cpus.size(), std::max(cpu_count, device_streams.cpus().size())));
    for (size_t cpu = 0; cpu < device_streams.cpus().size(); ++cpu)
      for (const auto& trace : device_streams.cpus()[cpu]) format::append_blk_trace(trace, cpus[cpu]);
    outcome.traces += device_streams.traces();
  }
  for (auto& [name, cpus] : files) {
    cpus.resize(std::max(cpus.size(), cpu_count));
    for (size_t cpu = 0; cpu < cpus.size(); ++cpu) {
      std::string path = in_directory(format::blktrace_file_name(name, static_cast<int>(cpu)));
      auto file = open_output_file(path);
      if (!file) return tl::unexpected(file.error());
      if (!write_all(file->get(), cpus[cpu])) return fail_errno(errno, fmt::format("cannot write {}", path));
      outcome.files.push_back(path);
    }
  }
  return outcome;
}

Result<void> blkparse_files(const BlkParseOptions& options, std::FILE* out, Diagnostics& diagnostics) {
  std::vector<analysis::BlkInput> inputs;
  std::string added;
  for (std::string name : options.inputs) {
    if (auto cut = name.find(".blktrace."); cut != std::string::npos) name.resize(cut);
    std::string directory = options.directory;
    if (path_directory(name) != ".") {
      directory = path_directory(name);
      name = std::string(path_basename(name));
    }
    analysis::BlkInput input;
    input.label = name;
    bool any = false;
    for (int cpu = 0;; ++cpu) {
      std::string path = (directory.empty() ? "" : directory + "/") + format::blktrace_file_name(name, cpu);
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0) break;
      any = true;
      input.cpus.emplace_back();
      if (st.st_size == 0) continue;
      auto reader = format::BlktraceReader::open(path);
      if (!reader) return tl::unexpected(reader.error());
      input.cpus.back() = std::make_unique<BlktraceFileSource>(std::move(*reader), diagnostics);
      added += fmt::format("Input file {} added\n", path);
    }
    if (!any)
      return failf(
          "no input files found for {} (blkparse reads {}): record them with sonde blk record -d DEVICE",
          name, format::blktrace_file_name(name, 0));
    inputs.push_back(std::move(input));
  }
  // blkparse prints these through a second stdio stream: on a terminal they come first, into a
  // file or pipe after everything else, when that stream is flushed at exit.
  bool terminal = ::isatty(::fileno(out));
  if (terminal) std::fwrite(added.data(), 1, added.size(), out);
  auto driver_data = print_parse(inputs, !options.quiet, out, diagnostics);
  if (!driver_data) return tl::unexpected(driver_data.error());
  if (!terminal) std::fwrite(added.data(), 1, added.size(), out);
  if (*driver_data) std::fputs(output::blkparse_driver_data_note().data(), out);
  std::fflush(out);
  return {};
}

Result<void> blkparse_trace_dat(const std::string& path, std::FILE* out, Diagnostics& diagnostics) {
  auto streams = read_blk_records(path, diagnostics);
  if (!streams) return tl::unexpected(streams.error());
  if (streams->devices.empty())
    return failf(
        "{} holds no blk tracer records; record them with sonde ftrace record -p blk --device DEVICE", path);
  std::vector<analysis::BlkInput> inputs;
  for (auto& [device, device_streams] : streams->devices) {
    analysis::BlkInput input;
    input.label = device_label(device);
    for (auto& traces : device_streams.cpus())
      input.cpus.push_back(std::make_unique<analysis::BlkTraceList>(std::move(traces)));
    inputs.push_back(std::move(input));
  }
  auto driver_data = print_parse(inputs, true, out, diagnostics);
  if (!driver_data) return tl::unexpected(driver_data.error());
  if (*driver_data) std::fputs(output::blkparse_driver_data_note().data(), out);
  std::fflush(out);
  return {};
}

Result<int> blk_live(const BlkRecordOptions& options, std::FILE* out, Diagnostics& diagnostics) {
  auto command = traced_command(options);
  if (!command) return tl::unexpected(command.error());
  capture::BlockedSignals signals;
  analysis::BlkAccounting accounting([&](const std::string& line) { diagnostics.warning(line); });
  std::map<uint32_t, size_t> inputs;  // device -> input
  std::vector<uint32_t> sequences;
  std::optional<uint64_t> genesis;
  fmt::memory_buffer text;
  std::string warning;
  int blk_id = -1;
  auto on_event = [&](ftrace::LocalTep& tep, const ftrace::LiveEvent& event) {
    if (blk_id < 0) blk_id = tracedat::blktrace_event_id(tep.handle());
    tep_record record{};
    record.data = event.data;
    record.size = event.size;
    if (tep_data_type(tep.handle(), &record) != blk_id) return;
    auto trace = tracedat::blk_trace_from_record(event.data, event.size, event.ts, event.cpu);
    if (!trace) return;
    if (!genesis) genesis = trace->time;
    if (static_cast<size_t>(event.cpu) >= sequences.size()) sequences.resize(event.cpu + 1);
    trace->sequence = ++sequences[event.cpu];
    auto [at, added] = inputs.try_emplace(trace->device, 0);
    if (added) at->second = accounting.add_input(device_label(trace->device));
    if (!accounting.knows_name(trace->pid)) {
      tep.learn_task(static_cast<int>(trace->pid));
      accounting.learn_name(trace->pid, task_name(tep.handle(), static_cast<int>(trace->pid)));
    }
    uint64_t time = trace->time >= *genesis ? trace->time - *genesis : 0;
    if (auto parsed = accounting.account(at->second, event.cpu, *trace, time)) {
      output::append_blkparse_line(*parsed, text, warning);
      if (!warning.empty()) {
        diagnostics.warning(warning);
        warning.clear();
      }
    }
    std::fwrite(text.data(), 1, text.size(), out);
    std::fflush(out);
    text.clear();
  };
  auto status = ftrace::stream_ftrace(signals, blk_tracing_request(options), *command, diagnostics, on_event);
  if (!status) return status;
  analysis::BlkParseResult result = accounting.result();
  std::string summary = output::format_blkparse_summary(result);
  if (result.saw_driver_data) summary += output::blkparse_driver_data_note();
  std::fwrite(summary.data(), 1, summary.size(), out);
  std::fflush(out);
  return status;
}

}  // namespace sonde::pipeline
