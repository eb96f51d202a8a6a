#include "analysis/top/top_profile.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace sonde::analysis {

namespace {

// perf 6.1's idle functions (symbol__is_idle): time a CPU spends in them is not shown.
constexpr std::array<std::string_view, 19> kIdleFunctions = {"acpi_idle_do_entry",
                                                             "acpi_processor_ffh_cstate_enter",
                                                             "arch_cpu_idle",
                                                             "cpu_idle",
                                                             "cpu_startup_entry",
                                                             "idle_cpu",
                                                             "intel_idle",
                                                             "default_idle",
                                                             "native_safe_halt",
                                                             "enter_idle",
                                                             "exit_idle",
                                                             "mwait_idle",
                                                             "mwait_idle_with_hints",
                                                             "mwait_idle_with_hints.constprop.0",
                                                             "poll_idle",
                                                             "ppc64_runlatch_off",
                                                             "pseries_dedicated_idle_sleep",
                                                             "psw_idle",
                                                             "psw_idle_exit"};

}  // namespace

TopProfile::TopProfile(FrameResolver& resolver, const std::vector<SortKey>& keys)
    : resolver_(resolver), histogram_(std::make_unique<Histogram>()) {
  one_context_ = std::none_of(keys.begin(), keys.end(), [](SortKey key) {
    return key == SortKey::comm || key == SortKey::pid || key == SortKey::cpu;
  });
}

bool TopProfile::add(const session::Machine& machine, const session::Thread& thread,
                     const perfdata::Sample& sample, uint8_t cpumode, uint64_t period) {
  uint32_t sampled = place(machine, thread, cpumode, sample.ip);
  if (idle(sampled)) return false;
  int32_t cpu = sample.has(PERF_SAMPLE_CPU) ? static_cast<int32_t>(sample.cpu) : -1;
  uint32_t context = context_of(thread, cpu);
  if (!sample.has(PERF_SAMPLE_CALLCHAIN)) {
    uint32_t location = function_location(sampled);
    uint64_t key = uint64_t(context) << 32 | location;
    RecentStack& recent = recent_stacks_[(key * 0x9e3779b97f4a7c15ull) >> (64 - kCacheBits)];
    if (recent.key == key)
      histogram_->add_to_stack(recent.stack, period);
    else
      recent = RecentStack{key, histogram_->add(context, std::span(&location, 1), period)};
    return true;
  }
  locations_.clear();
  if (sample.has(PERF_SAMPLE_CALLCHAIN)) {
    uint8_t mode = PERF_RECORD_MISC_USER;
    for (size_t i = 0; i < sample.callchain.size(); ++i) {
      uint64_t ip = sample.callchain[i];
      if (ip >= PERF_CONTEXT_MAX) {
        mode = session::context_cpumode(ip, mode);
        continue;
      }
      locations_.push_back(place(machine, thread, mode, ip));
    }
  }
  if (locations_.empty()) locations_.push_back(sampled);
  histogram_->add(context, locations_, period);
  return true;
}

bool TopProfile::idle(uint32_t location) {
  if (location >= idle_.size()) idle_.resize(location + 1, -1);
  int8_t& known = idle_[location];
  if (known < 0) {
    const FrameLocation& where = tables_.locations.location(location);
    known = 0;
    if (where.level == 'k' && where.dso != nullptr) {
      auto symbol = resolver_.symbol(*where.dso, where.address);
      known = symbol &&
              std::find(kIdleFunctions.begin(), kIdleFunctions.end(), symbol->name) != kIdleFunctions.end();
    }
  }
  return known == 1;
}

uint32_t TopProfile::place(const session::Machine& machine, const session::Thread& thread, uint8_t cpumode,
                           uint64_t ip) {
  bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
  uint64_t where_key =
      (kernel ? 0 : reinterpret_cast<uintptr_t>(thread.maps.get())) ^ (uint64_t(cpumode) << 56);
  // A user address stays placed until its process's maps change; a kernel one until a module's do.
  uint64_t generation = kernel || !thread.maps ? kernel_generation_ : thread.maps->generation();
  RecentFrame& recent = recent_frames_[((ip ^ where_key) * 0x9e3779b97f4a7c15ull) >> (64 - kCacheBits)];
  if (recent.ip == ip && recent.where == where_key && recent.generation == generation) return recent.location;
  session::Location where = machine.locate(thread, cpumode, ip);
  if (where.dso) where.dso->hit = true;
  recent = RecentFrame{where_key, ip, generation, tables_.locations.intern(where)};
  return recent.location;
}

uint32_t TopProfile::function_location(uint32_t location) {
  if (location >= function_location_.size()) function_location_.resize(location + 1, kNoId);
  uint32_t& known = function_location_[location];
  if (known != kNoId) return known;
  known = location;
  const FrameLocation& where = tables_.locations.location(location);
  if (where.dso == nullptr) return known;
  auto symbol = resolver_.symbol(*where.dso, where.address);
  if (!symbol) return known;
  // perf's entry: (DSO, symbol), and the level, which the location's key holds too.
  auto [it, inserted] =
      function_locations_[where.dso].emplace(symbol->start << 8 | uint8_t(where.level), location);
  known = it->second;
  return known;
}

uint32_t TopProfile::context_of(const session::Thread& thread, int32_t cpu) {
  if (one_context_ && last_thread_ != nullptr) return last_context_;
  if (&thread != last_thread_ || thread.tid != last_tid_ || cpu != last_cpu_ || thread.comm != last_comm_) {
    last_thread_ = &thread;
    last_tid_ = thread.tid;
    last_cpu_ = cpu;
    last_comm_ = thread.comm;
    last_context_ = tables_.context(tables_.comm_id(thread.comm), thread.pid, thread.tid, cpu);
  }
  return last_context_;
}

void TopProfile::build(const HistOptions& options) {
  tables_.locations.resolve(resolver_);
  // report's Pid:Command shows the thread's comm at the end; top's end is now.
  tables_.final_comms.clear();
  for (const SampleContext& context : tables_.contexts)
    tables_.final_comms.push_back(tables_.comms[context.comm]);
  histogram_->build(tables_, options);
}

void TopProfile::age(bool zero, bool hide_user, bool hide_kernel) {
  auto aged = std::make_unique<Histogram>();
  const Histogram& old = *histogram_;
  if (!zero && old.filtered_period() * 7 / 8 > 0) aged->add_filtered(old.filtered_period() * 7 / 8);
  for (uint32_t s = 0; s < old.stack_count(); ++s) {
    std::span<const uint32_t> frames = old.stack_frames(s);
    if (zero || frames.empty()) continue;
    char level = tables_.locations.location(frames[0]).level;
    if ((hide_user && level == '.') || (hide_kernel && level != '.')) continue;
    // perf's he_stat__decay: period and events each to 7/8, an entry at period 0 removed.
    uint64_t period = old.stack_period(s) * 7 / 8;
    uint32_t samples = static_cast<uint32_t>(uint64_t(old.stack_samples(s)) * 7 / 8);
    if (period == 0) continue;
    aged->add_samples(old.stack_context(s), frames, period, samples);
  }
  histogram_ = std::move(aged);
  recent_stacks_.fill(RecentStack{});
}

}  // namespace sonde::analysis
