#pragma once
// perf keeps a DSO's symbols in a red-black tree keyed by start address and answers a lookup
// with the first symbol on the search path whose range covers the address. Where ranges
// overlap (a zero-size _init stretched over .plt, and the PLT entries perf adds after its
// clean-ups), which symbol perf names depends on the tree's shape. This replays that tree:
// the same inserts and erases in the same order, with the kernel's red-black rules.
#include <cstdint>
#include <optional>
#include <vector>

namespace sonde::symbols {

class PerfSymbolTree {
 public:
  static constexpr uint32_t kNil = UINT32_MAX;

  // perf's symbols__insert: equal starts go right. `end` is exclusive (start for zero-size).
  uint32_t insert(uint64_t start, uint64_t end, uint32_t payload);
  // rb_erase of a node.
  void erase(uint32_t node);
  // perf's symbols__find: the start of the first node on the search path covering `addr`.
  std::optional<uint64_t> find_start(uint64_t addr) const;

  // In-order walk (perf's rb_first / rb_next).
  uint32_t first() const;
  uint32_t next(uint32_t node) const;
  uint64_t start(uint32_t node) const { return nodes_[node].start; }
  uint32_t payload(uint32_t node) const { return nodes_[node].payload; }
  bool live(uint32_t node) const { return nodes_[node].live; }

 private:
  struct Node {
    uint64_t start, end;
    uint32_t payload;
    uint32_t left = kNil, right = kNil, parent = kNil;
    bool red = true;
    bool live = true;
  };
  bool red(uint32_t n) const { return n != kNil && nodes_[n].red; }
  void rotate_left(uint32_t x);
  void rotate_right(uint32_t x);
  void transplant(uint32_t u, uint32_t v);
  uint32_t minimum(uint32_t n) const;
  void erase_fixup(uint32_t x, uint32_t parent);

  std::vector<Node> nodes_;
  uint32_t root_ = kNil;
};

}  // namespace sonde::symbols
