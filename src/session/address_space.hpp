#pragma once
// A process's address space over time: the executable mappings MMAP/MMAP2 records announce,
// kept sorted and non-overlapping (a new mapping cuts away what it covers, as mmap does).
// Threads of one process share one AddressSpace; fork copies it; exec starts a new one.
#include <cstdint>
#include <vector>

#include "session/dso.hpp"

namespace sonde::session {

struct Map {
  uint64_t start = 0;
  uint64_t end = 0;    // exclusive
  uint64_t pgoff = 0;  // file offset of `start`
  Dso* dso = nullptr;
  uint32_t prot = 0, flags = 0;

  bool contains(uint64_t ip) const { return ip >= start && ip < end; }
  // perf's map_ip: the address in the DSO's space. File-backed user maps: the file offset.
  // Kernel, modules and JIT maps: the address itself (their symbols are absolute).
  uint64_t dso_address(uint64_t ip) const;
};

class AddressSpace {
 public:
  // Adds `map`, trimming or splitting the maps it overlaps.
  void insert(const Map& map);
  // The map covering `ip`, or nullptr. Valid until the next insert.
  const Map* find(uint64_t ip) const;
  const std::vector<Map>& maps() const { return maps_; }
  // Changes with every insert, to a value no other insert in any space had: lets caches built
  // from the maps (the unwinder's, top's) notice.
  uint64_t generation() const { return generation_; }

 private:
  std::vector<Map> maps_;  // sorted by start, disjoint
  uint64_t generation_ = 0;
};

}  // namespace sonde::session
