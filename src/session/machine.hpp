#pragma once
// The machine a profile was recorded on, replayed from its side-band records in time order:
// threads with their comm, processes' address spaces, and the kernel's and modules' maps.
// Locations of sampled addresses are answered against the state at the record being replayed.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perfdata/kernel_records.hpp"
#include "session/address_space.hpp"
#include "session/dso.hpp"

namespace sonde::session {

struct Thread {
  int32_t pid = -1;
  int32_t tid = -1;
  int32_t ppid = -1;      // the forking thread's tid, as perf's thread__fork sets it; -1 unknown
  std::string comm;       // perf's ":TID" until a COMM or FORK names it
  bool comm_set = false;  // named by a COMM (or inherited a name): forks pass only a set comm on
  bool exited = false;
  std::shared_ptr<AddressSpace> maps;  // shared by the threads of one process
};

// A sampled address placed in its map and DSO.
struct Location {
  uint64_t ip = 0;
  const Map* map = nullptr;  // nullptr: no map covers ip (valid only while the record is replayed)
  Dso* dso = nullptr;        // map->dso
  uint64_t dso_address = 0;  // Map::dso_address(ip); ip when there is no map
  uint8_t cpumode = PERF_RECORD_MISC_USER;  // PERF_RECORD_MISC_KERNEL, _USER, _HYPERVISOR, ...

  bool kernel() const {
    return cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
  }
};

// The cpumode a PERF_CONTEXT_* marker of a callchain gives the entries after it; `current` for
// markers that name no privilege level.
uint8_t context_cpumode(uint64_t marker, uint8_t current);

class Machine {
 public:
  Machine();

  DsoTable& dsos() { return dsos_; }
  const DsoTable& dsos() const { return dsos_; }
  // Build-ids from the file's BUILD_ID feature, applied to DSOs of that name as they appear.
  void add_build_id(std::string_view filename, std::string hex);

  // The thread `tid` of process `pid`, created (with perf's ":tid" comm) when first seen.
  Thread& thread(int32_t pid, int32_t tid);
  const Thread* find_thread(int32_t tid) const;
  // Every thread seen, in no particular order.
  std::vector<const Thread*> threads() const;

  void apply_comm(const perfdata::CommRecord& comm);
  void apply_fork(const perfdata::ForkExitRecord& fork);
  void apply_exit(const perfdata::ForkExitRecord& exit);
  // MMAP and MMAP2 alike. `cpumode` is the record's misc & PERF_RECORD_MISC_CPUMODE_MASK.
  void apply_mmap(int32_t pid, int32_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
                  std::string_view filename, uint32_t prot, uint32_t flags, uint8_t cpumode,
                  std::string_view build_id_hex, uint64_t inode = 0);

  Location locate(const Thread& thread, uint8_t cpumode, uint64_t ip) const;

 private:
  Dso& dso_for(std::string_view filename, int32_t pid, bool kernel_map, bool executable);

  DsoTable dsos_;
  std::unordered_map<std::string, std::string> build_ids_;        // filename -> hex
  std::unordered_map<int32_t, std::unique_ptr<Thread>> threads_;  // by tid
  Thread* last_thread_ = nullptr;  // the one thread() returned last, while it is in threads_
  AddressSpace kernel_image_;      // [kernel.kallsyms]
  AddressSpace modules_;           // modules, looked up before the image's open-ended map
};

}  // namespace sonde::session
