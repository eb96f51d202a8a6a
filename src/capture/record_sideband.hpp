#pragma once
// What sonde record writes besides the kernel's own records: the synthesized side-band at the
// start (kernel and module maps, the tasks that existed before), and the DSOs that samples hit,
// whose build-ids go in the file's BUILD_ID feature.
#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "capture/sampling_session.hpp"
#include "format/build_ids.hpp"

namespace sonde::capture {

// perf record's --synth: which existing tasks' records are synthesized (the kernel's maps always
// are). "task" writes their COMM/FORK, "mmap" those and their maps ("all", the default); "no"
// and "cgroup" (sonde writes no CGROUP records) neither.
struct SidebandSynth {
  bool tasks = true;
  bool mmaps = true;
  bool cgroups = true;  // with --all-cgroups: a CGROUP record for every cgroup that exists
};
// "no", "all", or a comma list of task, mmap and cgroup; an unknown word is an error naming it.
// `cgroups` (record --all-cgroups) asks for the cgroups' records when the list allows them.
Result<SidebandSynth> parse_sideband_synth(std::string_view text);

// The side-band records for a recording of `target` (whose tids hold the workload's pid when a
// command is run), in kernel format, concatenated. `attr` is the first event's; with
// `data_mmaps` (dwarf call graphs) readable data mappings are written too, as perf does.
Result<std::string> synthesize_record_sideband(const perf_event_attr& attr, const SamplingTarget& target,
                                               bool data_mmaps, SidebandSynth synth = {});

// Follows the maps of the recorded processes (MMAP/MMAP2, FORK, exec) as records stream by and
// marks the DSO under each sample's IP, as perf marks DSOs hit for BUILD_ID, so the build-ids can
// be read once at the end without a second pass over the samples.
class DsoCollector {
 public:
  // `sample_type` is the events' (they share the IP and TID positions sonde gives them).
  explicit DsoCollector(uint64_t sample_type) : sample_type_(sample_type) {}
  void observe(const void* record, size_t size);
  // Every whole record in `records` (synthesized side-band).
  void observe_all(std::string_view records);
  // The DSOs hit by samples: files, and the kernel when a sample was in it.
  std::vector<format::DsoRef> dsos() const;
  // Every file mapped and the kernel, hit or not (record --buildid-all).
  std::vector<format::DsoRef> all_dsos() const;
  // The earliest and latest sample times seen (perf's SAMPLE_TIME feature); 0, 0 for none.
  std::pair<uint64_t, uint64_t> sample_times() const { return {first_time_, last_time_}; }

 private:
  struct Map {
    uint64_t end = 0;
    const std::string* file = nullptr;  // interned in files_
  };
  using AddressSpace = std::map<uint64_t, Map>;  // by start address
  void add_map(uint32_t pid, uint64_t start, uint64_t length, const std::string& name);
  void mark_hit(uint32_t pid, uint64_t ip, bool kernel);

  void forget_exited(uint32_t pid);

  uint64_t sample_type_;
  uint64_t first_time_ = 0, last_time_ = 0;
  std::set<std::string> files_;
  std::map<uint32_t, AddressSpace> processes_;
  // Processes that exited, forgotten only after kExitsKept later exits: a sample of theirs from
  // another CPU's buffer can still come after the EXIT record. Without forgetting, a system-wide
  // recording of a fork-heavy machine keeps every pid's maps until pids wrap (32768 here).
  struct Exit {
    uint32_t pid;
    uint64_t number;
  };
  static constexpr size_t kExitsKept = 4096;
  std::deque<Exit> exits_;
  std::unordered_map<uint32_t, uint64_t> latest_exit_;  // pid → its pending exit's number
  uint64_t exit_count_ = 0;
  std::set<const std::string*> hit_;
  bool kernel_hit_ = false;
};

}  // namespace sonde::capture
