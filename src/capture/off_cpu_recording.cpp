#include "capture/off_cpu_recording.hpp"

#include <cstring>

#include "format/record_view.hpp"
#include "format/sample.hpp"
#include "format/synthesize.hpp"

namespace sonde::capture {

namespace {

// perf's OFFCPU_SAMPLE_TYPES: what its off-CPU samples may carry.
constexpr uint64_t kOffCpuSampleTypes = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                        PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
                                        PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
// perf 6.1 stamps its end-of-recording off-CPU samples from here up, after every real record.
constexpr uint64_t kEndTimestamp = ~0ULL << 32;
// The file-only events' ids: never opened, so the kernel never hands out ids this high.
constexpr uint64_t kWakerEventId = (1ULL << 62) + 1;
constexpr uint64_t kPreemptedEventId = (1ULL << 62) + 2;
constexpr uint32_t kIdleWaker = 0xffffffff;  // the BPF program's tid for the idle task (pid 0)

}  // namespace

events::EventSpec off_cpu_event() {
  events::EventSpec spec;
  spec.name = kOffCpuEventName;
  spec.attr.type = PERF_TYPE_SOFTWARE;
  spec.attr.size = sizeof spec.attr;
  spec.attr.config = PERF_COUNT_SW_BPF_OUTPUT;
  spec.attr.sample_period = 1;
  spec.period_term = true;
  return spec;
}

perf_event_attr off_cpu_file_attr(perf_event_attr recorded) {
  recorded.sample_type =
      (recorded.sample_type & kOffCpuSampleTypes) | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_WEIGHT;
  recorded.exclude_callchain_user = 0;
  recorded.sample_regs_user = 0;
  recorded.sample_stack_user = 0;
  recorded.freq = 0;
  recorded.sample_period = 1;
  return recorded;
}

perf_event_attr off_cpu_opened_attr(const perf_event_attr& file_attr) {
  perf_event_attr opened = file_attr;
  opened.sample_type =
      (file_attr.sample_type & ~(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_WEIGHT)) | PERF_SAMPLE_RAW;
  return opened;
}

Result<OffCpuRecording> OffCpuRecording::open(const OffCpuSettings& settings, const SamplingTarget& target,
                                              const perf_event_attr& file_attr,
                                              const perf_event_attr& opened_attr) {
  if (!(file_attr.sample_type & PERF_SAMPLE_IDENTIFIER))
    return fail("the offcpu-time event needs sample identifiers (it is never alone)");
  kernel::OffCpuOptions options;
  options.system_wide = target.kind == SamplingTarget::Kind::system;
  if (options.system_wide) options.cpus = target.cpus;
  options.follow_children = settings.follow_children;
  options.direct_threshold_ns = settings.threshold_ms * 1'000'000;
  options.wakers = settings.wakers;
  auto profiler = kernel::OffCpuProfiler::open(options);
  if (!profiler) return tl::unexpected(profiler.error());
  OffCpuRecording recording(std::move(*profiler));
  recording.target_ = target;
  recording.wakers_ = settings.wakers;
  recording.tracepoint_glue_ = settings.tracepoint_glue;
  recording.file_attr_ = file_attr;
  // The waker's samples also name the woken thread, in their address.
  recording.waker_attr_ = file_attr;
  recording.waker_attr_.sample_type |= PERF_SAMPLE_ADDR;
  recording.opened_attr_ = opened_attr;
  return recording;
}

Result<void> OffCpuRecording::start(const SamplingSession& session, size_t index, pid_t workload_pid) {
  for (uint64_t id : session.ids()[index]) ids_.insert(id);
  if (!session.ids()[index].empty()) first_id_ = session.ids()[index].front();
  if (auto connected = profiler_.connect(session.cpu_fds(index)); !connected) return connected;
  if (target_.kind != SamplingTarget::Kind::system) {
    if (target_.kind == SamplingTarget::Kind::workload && workload_pid > 0) {
      if (auto followed = profiler_.follow(workload_pid, true); !followed) return followed;
    } else {
      for (pid_t tid : target_.tids)
        if (auto followed = profiler_.follow(tid, false); !followed) return followed;
    }
  }
  return profiler_.start();
}

std::vector<FileOnlyEvent> OffCpuRecording::file_only_events() const {
  std::vector<FileOnlyEvent> events{{file_attr_, kOffCpuPreemptedEventName, kPreemptedEventId}};
  if (wakers_) events.push_back({waker_attr_, kOffCpuWakerEventName, kWakerEventId});
  return events;
}

Result<std::string> OffCpuRecording::sample(const perf_event_attr& attr, uint32_t pid, uint32_t tid,
                                            int32_t kernel_stack, int32_t user_stack, uint64_t blocked_ns,
                                            uint64_t time, uint32_t cpu, uint64_t id, uint64_t addr,
                                            uint64_t weight) {
  // The chain perf report walks: kernel frames from the scheduler down, then the user's.
  chain_.clear();
  auto kernel_frames = profiler_.stack(kernel_stack);
  auto user_frames = profiler_.stack(user_stack);
  auto in_glue = [this](uint64_t ip) {
    for (const auto& [start, end] : tracepoint_glue_)
      if (ip >= start && ip < end) return true;
    return false;
  };
  size_t glue = 0;
  while (glue < kernel_frames.size() && in_glue(kernel_frames[glue])) ++glue;
  kernel_frames.erase(kernel_frames.begin(), kernel_frames.begin() + static_cast<ptrdiff_t>(glue));
  if (!kernel_frames.empty()) {
    chain_.push_back(PERF_CONTEXT_KERNEL);
    chain_.insert(chain_.end(), kernel_frames.begin(), kernel_frames.end());
  }
  if (!user_frames.empty()) {
    chain_.push_back(PERF_CONTEXT_USER);
    chain_.insert(chain_.end(), user_frames.begin(), user_frames.end());
  }
  perfdata::SyntheticSample sample;
  sample.ip = !kernel_frames.empty() ? kernel_frames.front() : !user_frames.empty() ? user_frames.front() : 0;
  sample.misc = kernel_frames.empty() ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL;
  sample.pid = pid;
  sample.tid = tid;
  sample.time = time;
  sample.id = id;
  sample.cpu = cpu;
  sample.period = blocked_ns;
  sample.addr = addr;
  sample.weight = weight;
  sample.callchain = chain_;
  return perfdata::make_sample(attr, sample);
}

Result<void> OffCpuRecording::append_sample(const kernel::OffCpuKey& key, uint64_t blocked_ns, uint64_t time,
                                            uint32_t cpu, uint64_t id, std::string& out) {
  // A preempted thread's wait goes apart from the blocks perf counts.
  bool preempted = key.state == 0;
  auto blocked = sample(file_attr_, key.pid, key.tid, key.kernel_stack, key.user_stack, blocked_ns, time, cpu,
                        preempted ? kPreemptedEventId : id, 0, key.state);
  if (!blocked) return tl::unexpected(blocked.error());
  out += *blocked;
  if (preempted || !wakers_ || key.waker_tid == 0) return {};
  // The waker right after, stamped the same, naming the woken thread in its address.
  bool idle = key.waker_tid == kIdleWaker;
  auto waker = sample(waker_attr_, idle ? 0 : key.waker_pid, idle ? 0 : key.waker_tid, key.waker_kernel_stack,
                      key.waker_user_stack, blocked_ns, time, cpu, kWakerEventId, key.tid, key.state);
  if (!waker) return tl::unexpected(waker.error());
  out += *waker;
  return {};
}

bool OffCpuRecording::rewrite(const void* data, size_t size, std::string& out) {
  if (size < sizeof(perf_event_header) + sizeof(uint64_t)) return false;
  perf_event_header header;
  std::memcpy(&header, data, sizeof header);
  if (header.type != PERF_RECORD_SAMPLE) return false;
  uint64_t identifier;
  std::memcpy(&identifier, static_cast<const char*>(data) + sizeof header, sizeof identifier);
  if (!ids_.contains(identifier)) return false;
  perfdata::RecordView view{header, Bytes(static_cast<const uint8_t*>(data), size), 0};
  auto carrier = perfdata::decode_sample(view, opened_attr_);
  kernel::OffCpuSample block;
  if (!carrier || carrier->raw.size() < sizeof block) {
    out.clear();  // not one of ours after all: dropped rather than written with the wrong layout
    return true;
  }
  std::memcpy(&block, carrier->raw.data(), sizeof block);
  out.clear();
  if (!append_sample(block.key, block.blocked_ns, carrier->time, carrier->cpu, identifier, out)) out.clear();
  return true;
}

Result<std::string> OffCpuRecording::finish() {
  profiler_.stop();
  auto totals = profiler_.totals();
  if (!totals) return tl::unexpected(totals.error());
  std::string records;
  uint64_t time = kEndTimestamp;
  for (const auto& total : *totals)
    if (auto made = append_sample(total.key, total.blocked_ns, time++, 0, first_id_, records); !made)
      return tl::unexpected(made.error());
  return records;
}

}  // namespace sonde::capture
