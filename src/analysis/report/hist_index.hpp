#pragma once
// Dense ids for small fixed-size integer keys and for integer sequences: the report's hot path
// interns every sampled address, context and stack through these. Open addressing, linear
// probing, power-of-two capacity; ids are handed out 0, 1, 2... in first-seen order.
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace sonde::analysis {

inline uint64_t mix_hash(uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

// Key of N u64 words -> dense id.
template <size_t N>
class KeyIndex {
 public:
  using Key = std::array<uint64_t, N>;
  static constexpr uint32_t kNone = UINT32_MAX;

  KeyIndex() { slots_.assign(64, kNone); }

  // The key's id; `inserted` says whether it is new.
  uint32_t intern(const Key& key, bool& inserted) {
    if ((keys_.size() + 1) * 2 > slots_.size()) grow();
    size_t mask = slots_.size() - 1;
    for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      uint32_t id = slots_[i];
      if (id == kNone) {
        slots_[i] = static_cast<uint32_t>(keys_.size());
        keys_.push_back(key);
        inserted = true;
        return slots_[i];
      }
      if (same(keys_[id], key)) {
        inserted = false;
        return id;
      }
    }
  }
  uint32_t intern(const Key& key) {
    bool inserted;
    return intern(key, inserted);
  }
  uint32_t find(const Key& key) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      uint32_t id = slots_[i];
      if (id == kNone || same(keys_[id], key)) return id;
    }
  }
  const Key& key(uint32_t id) const { return keys_[id]; }
  size_t size() const { return keys_.size(); }
  void clear() {
    keys_.clear();
    slots_.assign(64, kNone);
  }

 private:
  static bool same(const Key& a, const Key& b) {
    for (size_t i = 0; i < N; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  // One multiply per word, then the high bits folded down: the table indexes by the low bits.
  static uint64_t hash(const Key& key) {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint64_t word : key) h = (std::rotl(h, 5) ^ word) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 32) ^ (h >> 47);
  }
  void grow() {
    std::vector<uint32_t> slots(slots_.size() * 2, kNone);
    size_t mask = slots.size() - 1;
    for (uint32_t id = 0; id < keys_.size(); ++id) {
      size_t i = hash(keys_[id]) & mask;
      while (slots[i] != kNone) i = (i + 1) & mask;
      slots[i] = id;
    }
    slots_.swap(slots);
  }

  std::vector<uint32_t> slots_;
  std::vector<Key> keys_;
};

// A sequence's bytes hashed in four independent lanes of one multiply per 8 bytes (stacks are
// long: the lanes keep the multiplier busy instead of waiting on one chain), then mixed.
inline uint32_t hash_sequence_bytes(const void* data, size_t size) {
  constexpr uint64_t k = 0x9e3779b97f4a7c15ull;
  const auto* bytes = static_cast<const unsigned char*>(data);
  auto word = [&](size_t at) {
    uint64_t w;
    std::memcpy(&w, bytes + at, sizeof w);
    return w;
  };
  uint64_t a = k ^ size, b = 0x243f6a8885a308d3ull, c = 0x13198a2e03707344ull, d = 0xa4093822299f31d0ull;
  size_t i = 0;
  for (; i + 32 <= size; i += 32) {
    a = (std::rotl(a, 5) ^ word(i)) * k;
    b = (std::rotl(b, 5) ^ word(i + 8)) * k;
    c = (std::rotl(c, 5) ^ word(i + 16)) * k;
    d = (std::rotl(d, 5) ^ word(i + 24)) * k;
  }
  for (; i + 8 <= size; i += 8) a = (std::rotl(a, 5) ^ word(i)) * k;
  if (i + 4 <= size) {
    uint32_t w;
    std::memcpy(&w, bytes + i, sizeof w);
    a = (std::rotl(a, 5) ^ w) * k;
  }
  return static_cast<uint32_t>(mix_hash(a ^ std::rotl(b, 17) ^ std::rotl(c, 31) ^ std::rotl(d, 47)));
}

// Sequences of words (u32: a context id followed by a stack's location ids; u64: a raw
// callchain) -> dense id. The sequences live back to back in one pool.
template <typename Word>
class SequenceIndexOf {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  SequenceIndexOf() { slots_.assign(1024, Slot{0, kNone}); }

  uint32_t intern(std::span<const Word> sequence, bool& inserted) {
    if (sequence.empty()) return intern_split(std::nullopt, nullptr, 0, inserted);
    return intern_split(sequence[0], sequence.data() + 1, sequence.size() - 1, inserted);
  }
  // The sequence `head` (when given) then `tail_words` words at `tail`, which may be unaligned
  // (a record's own bytes): no copy unless it is new.
  uint32_t intern_split(std::optional<Word> head, const void* tail, size_t tail_words, bool& inserted) {
    if ((offsets_.size() + 1) * 2 > slots_.size()) grow();
    size_t length = tail_words + (head ? 1 : 0);
    size_t tail_bytes = tail_words * sizeof(Word);
    uint32_t h = static_cast<uint32_t>(mix_hash(uint64_t(hash_sequence_bytes(tail, tail_bytes)) << 32 ^
                                                (head ? uint64_t(*head) : 0) ^ length));
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.id == kNone) {
        slot = Slot{h, static_cast<uint32_t>(offsets_.size())};
        offsets_.push_back(pool_.size());
        if (head) pool_.push_back(*head);
        size_t at = pool_.size();
        pool_.resize(at + tail_words);
        if (tail_bytes) std::memcpy(pool_.data() + at, tail, tail_bytes);
        lengths_.push_back(static_cast<uint32_t>(length));
        inserted = true;
        return slot.id;
      }
      if (slot.hash == h && lengths_[slot.id] == length) {
        const Word* stored = pool_.data() + offsets_[slot.id];
        if ((!head || stored[0] == *head) &&
            (tail_bytes == 0 || std::memcmp(stored + (head ? 1 : 0), tail, tail_bytes) == 0)) {
          inserted = false;
          return slot.id;
        }
      }
    }
  }
  // A new id for `sequence` without looking it up (and without intern() finding it later):
  // for sequences that are nearly all new, where a lookup is a cache miss that finds nothing.
  uint32_t append(std::span<const Word> sequence) {
    offsets_.push_back(pool_.size());
    pool_.insert(pool_.end(), sequence.begin(), sequence.end());
    lengths_.push_back(static_cast<uint32_t>(sequence.size()));
    return static_cast<uint32_t>(offsets_.size() - 1);
  }
  std::span<const Word> sequence(uint32_t id) const { return {pool_.data() + offsets_[id], lengths_[id]}; }
  size_t size() const { return offsets_.size(); }
  size_t pool_words() const { return pool_.size(); }

 private:
  // The hash's 32 bits: enough to place a slot again when the table grows (below 2^32 slots)
  // and to skip most unequal sequences without reading them.
  struct Slot {
    uint32_t hash;
    uint32_t id;
  };
  void grow() {
    std::vector<Slot> slots(slots_.size() * 2, Slot{0, kNone});
    size_t mask = slots.size() - 1;
    for (const Slot& slot : slots_) {
      if (slot.id == kNone) continue;
      size_t i = slot.hash & mask;
      while (slots[i].id != kNone) i = (i + 1) & mask;
      slots[i] = slot;
    }
    slots_.swap(slots);
  }

  std::vector<Slot> slots_;
  std::vector<Word> pool_;
  std::vector<uint64_t> offsets_;
  std::vector<uint32_t> lengths_;
};

using SequenceIndex = SequenceIndexOf<uint32_t>;

}  // namespace sonde::analysis
