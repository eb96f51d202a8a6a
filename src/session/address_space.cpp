#include "session/address_space.hpp"

#include <algorithm>
#include <atomic>

namespace sonde::session {

uint64_t Map::dso_address(uint64_t ip) const {
  if (dso != nullptr && (dso->is_kernel() || dso->kind == DsoKind::jit_map)) return ip;
  return ip - start + pgoff;
}

void AddressSpace::insert(const Map& map) {
  if (map.end <= map.start) return;
  // Unique across every address space: a cache keyed by (space, generation) never mistakes one
  // space's state for another's.
  static std::atomic<uint64_t> next_generation{1};
  generation_ = next_generation.fetch_add(1, std::memory_order_relaxed);
  // First map that ends after the new one starts: everything before it is untouched.
  auto first = std::lower_bound(maps_.begin(), maps_.end(), map.start,
                                [](const Map& m, uint64_t start) { return m.end <= start; });
  std::vector<Map> pieces;  // what survives of the overlapped maps, outside the new range
  auto last = first;
  for (; last != maps_.end() && last->start < map.end; ++last) {
    if (last->start < map.start) {
      Map head = *last;
      head.end = map.start;
      pieces.push_back(head);
    }
    if (last->end > map.end) {
      Map tail = *last;
      tail.pgoff += map.end - tail.start;
      tail.start = map.end;
      pieces.push_back(tail);
    }
  }
  pieces.push_back(map);
  std::sort(pieces.begin(), pieces.end(), [](const Map& a, const Map& b) { return a.start < b.start; });
  auto at = maps_.erase(first, last);
  maps_.insert(at, pieces.begin(), pieces.end());
}

const Map* AddressSpace::find(uint64_t ip) const {
  auto it = std::upper_bound(maps_.begin(), maps_.end(), ip,
                             [](uint64_t value, const Map& m) { return value < m.start; });
  if (it == maps_.begin()) return nullptr;
  --it;
  return it->contains(ip) ? &*it : nullptr;
}

}  // namespace sonde::session
