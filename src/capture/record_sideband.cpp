#include "capture/record_sideband.hpp"

#include <fmt/format.h>

#include <cstring>
#include <iterator>

#include "base/strings.hpp"
#include "capture/sideband.hpp"
#include "format/synthesize.hpp"
#include "kernel/cgroup.hpp"
#include "kernel/kallsyms.hpp"

namespace sonde::capture {

Result<SidebandSynth> parse_sideband_synth(std::string_view text) {
  if (text == "no") return SidebandSynth{false, false, false};
  if (text == "all") return SidebandSynth{};
  SidebandSynth synth{false, false, false};
  for (const std::string& word : split(text, ',')) {
    if (word == "task")
      synth.tasks = true;
    else if (word == "mmap")
      synth.tasks = synth.mmaps = true;
    else if (word == "cgroup")
      synth.cgroups = true;
    else
      return fail(fmt::format("bad --synth '{}'; give no, all, or a list of task, mmap and cgroup", word));
  }
  return synth;
}

Result<std::string> synthesize_record_sideband(const perf_event_attr& attr, const SamplingTarget& target,
                                               bool data_mmaps, SidebandSynth synth) {
  std::string records;
  auto sink = append_to(records);
  // perf writes the kernel map first; without kallsyms addresses it writes none (and warns).
  if (auto text = kernel::find_kernel_text()) {
    auto modules = kernel::read_modules();
    std::vector<kernel::KernelModule> none;
    if (auto made = synthesize_kernel_maps(attr, *text, modules ? *modules : none, sink); !made)
      return tl::unexpected(made.error());
  }
  // perf writes the cgroups next, when the samples name theirs (--all-cgroups).
  if (synth.cgroups && (attr.sample_type & PERF_SAMPLE_CGROUP))
    for (const auto& cgroup : kernel::list_perf_cgroups())
      if (auto sent = sink(perfdata::make_cgroup(attr, cgroup.id, cgroup.path, {})); !sent)
        return tl::unexpected(sent.error());
  SidebandOptions options;
  options.data_mmaps = data_mmaps;
  options.mmaps = synth.mmaps;
  if (!synth.tasks) return records;
  switch (target.kind) {
    case SamplingTarget::Kind::workload:
      // The held child before its exec: its COMM; the kernel reports the exec and its maps.
      options.mmaps = false;
      if (auto made = synthesize_threads(attr, target.tids, options, sink); !made)
        return tl::unexpected(made.error());
      break;
    case SamplingTarget::Kind::threads:
      if (auto made = synthesize_threads(attr, target.tids, options, sink); !made)
        return tl::unexpected(made.error());
      break;
    case SamplingTarget::Kind::system:
      if (auto made = synthesize_all_tasks(attr, options, sink); !made) return tl::unexpected(made.error());
      break;
  }
  return records;
}

void DsoCollector::add_map(uint32_t pid, uint64_t start, uint64_t length, const std::string& name) {
  // Real files only: not [vdso], [heap], //anon, nor the kernel's "[kernel.kallsyms]_text".
  if (name.empty() || name.front() != '/' || length == 0) return;
  const std::string* file = &*files_.insert(name).first;
  auto& space = processes_[pid];
  uint64_t end = start + length;
  // A new mapping replaces what it overlaps, as mmap does.
  auto it = space.lower_bound(start);
  if (it != space.begin() && std::prev(it)->second.end > start) --it;
  while (it != space.end() && it->first < end) it = space.erase(it);
  space[start] = Map{end, file};
}

void DsoCollector::mark_hit(uint32_t pid, uint64_t ip, bool kernel) {
  if (kernel) {
    kernel_hit_ = true;
    return;
  }
  auto space = processes_.find(pid);
  if (space == processes_.end()) return;
  auto it = space->second.upper_bound(ip);
  if (it == space->second.begin()) return;
  --it;
  if (ip < it->second.end) hit_.insert(it->second.file);
}

void DsoCollector::forget_exited(uint32_t pid) {
  latest_exit_[pid] = ++exit_count_;
  exits_.push_back({pid, exit_count_});
  while (exits_.size() > kExitsKept) {
    Exit oldest = exits_.front();
    exits_.pop_front();
    auto latest = latest_exit_.find(oldest.pid);
    if (latest == latest_exit_.end() || latest->second != oldest.number) continue;
    latest_exit_.erase(latest);
    processes_.erase(oldest.pid);
  }
}

void DsoCollector::observe(const void* record, size_t size) {
  auto* header = static_cast<const perf_event_header*>(record);
  const char* bytes = static_cast<const char*>(record);
  auto u32 = [&](size_t offset) {
    uint32_t value = 0;
    if (offset + 4 <= size) std::memcpy(&value, bytes + offset, 4);
    return value;
  };
  auto u64 = [&](size_t offset) {
    uint64_t value = 0;
    if (offset + 8 <= size) std::memcpy(&value, bytes + offset, 8);
    return value;
  };
  auto name_at = [&](size_t offset) {
    return offset < size ? std::string(bytes + offset, strnlen(bytes + offset, size - offset))
                         : std::string();
  };
  switch (header->type) {
    case PERF_RECORD_MMAP:  // header, pid, tid, addr, len, pgoff, filename
      add_map(u32(8), u64(16), u64(24), name_at(40));
      break;
    case PERF_RECORD_MMAP2:  // ... pgoff, maj/min/ino/ino_generation or build-id, prot, flags, filename
      add_map(u32(8), u64(16), u64(24), name_at(72));
      break;
    case PERF_RECORD_FORK: {  // header, pid, ppid, tid, ptid: a new process starts with its parent's maps
      uint32_t pid = u32(8), ppid = u32(12);
      if (pid != ppid) {
        latest_exit_.erase(pid);  // a reused pid: an earlier exit of it no longer applies
        auto parent = processes_.find(ppid);
        if (parent != processes_.end()) processes_[pid] = parent->second;
      }
      break;
    }
    case PERF_RECORD_EXIT:  // header, pid, ppid, tid, ptid: the process ends with its main thread
      if (u32(8) == u32(16)) forget_exited(u32(8));
      break;
    case PERF_RECORD_COMM:  // an exec replaces the process's maps
      if (header->misc & PERF_RECORD_MISC_COMM_EXEC) processes_.erase(u32(8));
      break;
    case PERF_RECORD_SAMPLE: {
      // IDENTIFIER, then IP, then TID (pid, tid): the first fields of every sonde sample.
      size_t offset = 8;
      if (sample_type_ & PERF_SAMPLE_IDENTIFIER) offset += 8;
      if (!(sample_type_ & PERF_SAMPLE_IP) || !(sample_type_ & PERF_SAMPLE_TID)) break;
      uint64_t ip = u64(offset);
      uint32_t pid = u32(offset + 8);
      uint16_t mode = header->misc & PERF_RECORD_MISC_CPUMODE_MASK;
      mark_hit(pid, ip, mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL);
      if ((sample_type_ & PERF_SAMPLE_TIME) && offset + 24 <= header->size) {
        uint64_t time = u64(offset + 16);  // TIME follows TID
        if (first_time_ == 0 || time < first_time_) first_time_ = time;
        if (time > last_time_) last_time_ = time;
      }
      break;
    }
    default:
      break;
  }
}

void DsoCollector::observe_all(std::string_view records) {
  size_t offset = 0;
  while (offset + sizeof(perf_event_header) <= records.size()) {
    perf_event_header header;
    std::memcpy(&header, records.data() + offset, sizeof header);
    if (header.size < sizeof header || offset + header.size > records.size()) break;
    observe(records.data() + offset, header.size);
    offset += header.size;
  }
}

std::vector<format::DsoRef> DsoCollector::dsos() const {
  std::vector<format::DsoRef> dsos;
  if (kernel_hit_) dsos.push_back({"[kernel.kallsyms]", true});
  for (const auto& file : files_)
    if (hit_.count(&file)) dsos.push_back({file, false});
  return dsos;
}

std::vector<format::DsoRef> DsoCollector::all_dsos() const {
  std::vector<format::DsoRef> dsos{{"[kernel.kallsyms]", true}};
  for (const auto& file : files_) dsos.push_back({file, false});
  return dsos;
}

}  // namespace sonde::capture
