#pragma once
// A hash map for the hot tables of the analyses (millions of lookups): open addressing with
// linear probing in one array, so a lookup touches one or two cache lines where
// std::unordered_map follows a node pointer; erasing shifts the entries after it back, so no
// tombstones pile up. Grows at half full. References stay valid until the next insertion or
// erasure.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace sonde {

template <typename Key, typename Value, typename Hash = std::hash<Key>>
class FlatHashMap {
 public:
  FlatHashMap() : slots_(16) {}

  Value* find(const Key& key) {
    size_t mask = slots_.size() - 1;
    for (size_t at = spread(key) & mask; slots_[at].used; at = (at + 1) & mask)
      if (slots_[at].key == key) return &slots_[at].value;
    return nullptr;
  }
  const Value* find(const Key& key) const { return const_cast<FlatHashMap*>(this)->find(key); }

  // The value of `key`, value-initialized when it was not there.
  Value& operator[](const Key& key) {
    if ((used_ + 1) * 2 > slots_.size()) grow();
    size_t mask = slots_.size() - 1;
    size_t at = spread(key) & mask;
    for (; slots_[at].used; at = (at + 1) & mask)
      if (slots_[at].key == key) return slots_[at].value;
    ++used_;
    slots_[at].used = true;
    slots_[at].key = key;
    return slots_[at].value;
  }

  // Removes `key`; whether it was there.
  bool erase(const Key& key) {
    size_t mask = slots_.size() - 1;
    size_t hole = spread(key) & mask;
    for (; slots_[hole].used; hole = (hole + 1) & mask)
      if (slots_[hole].key == key) break;
    if (!slots_[hole].used) return false;
    // Move back each later entry of the run whose home is not between the hole and itself.
    for (size_t at = (hole + 1) & mask; slots_[at].used; at = (at + 1) & mask) {
      size_t home = spread(slots_[at].key) & mask;
      bool stays = hole <= at ? (hole < home && home <= at) : (hole < home || home <= at);
      if (stays) continue;
      slots_[hole] = std::move(slots_[at]);
      hole = at;
    }
    slots_[hole] = Slot{};
    --used_;
    return true;
  }

  size_t size() const { return used_; }

  // Calls f(key, value) for every entry, in no particular order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Slot& slot : slots_)
      if (slot.used) f(slot.key, slot.value);
  }

 private:
  struct Slot {
    Key key{};
    Value value{};
    bool used = false;
  };
  // Fibonacci hashing over the user's hash, so sequential keys (pointers, page numbers) spread.
  size_t spread(const Key& key) const {
    return (static_cast<uint64_t>(Hash()(key)) * 0x9e3779b97f4a7c15ull) >> 16;
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    size_t mask = slots_.size() - 1;
    for (Slot& slot : old) {
      if (!slot.used) continue;
      size_t at = spread(slot.key) & mask;
      while (slots_[at].used) at = (at + 1) & mask;
      slots_[at] = std::move(slot);
    }
  }
  std::vector<Slot> slots_;
  size_t used_ = 0;
};

}  // namespace sonde
