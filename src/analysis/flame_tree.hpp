#pragma once
// The merged call tree a flame graph draws: one node per distinct path from the root, its value
// the sum of the stacks through it. Built from folded lines or straight from the collapser.
// Flame charts (time order) merge a stack only with the one before it, as flamegraph.pl does.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sonde::analysis {

struct FlameNode {
  uint32_t name = 0;  // index into FlameTree::names(); 0 is the root's ""
  uint32_t parent = 0;
  uint32_t depth = 0;
  double value = 0;   // samples through this frame (for differential input: the "after" profile)
  double delta = 0;   // differential input: after - before of the stacks ending here
  std::vector<uint32_t> children;
};

struct FlameTreeOptions {
  bool flamechart = false;  // keep input order, merge only with the previous stack
  bool reverse = false;     // leaf first: the merge happens at the leaf end
  bool chain = false;       // annotate frames after a "--" separator as wakers ("_[w]")
};

class FlameTree {
 public:
  explicit FlameTree(FlameTreeOptions options = {});

  // One stack, root first. `delta` is only given for differential input.
  void add(std::span<const std::string_view> frames, double value, const double* delta = nullptr);
  // A folded stack "a;b;c".
  void add_folded(std::string_view stack, double value, const double* delta = nullptr);
  // Orders children by name (not for flame charts). Call once after the last add.
  void finish();

  const std::vector<FlameNode>& nodes() const { return nodes_; }
  const std::vector<std::string>& names() const { return names_; }
  double total() const { return nodes_[0].value; }
  bool differential() const { return differential_; }
  double max_delta() const { return max_delta_; }

 private:
  uint32_t intern(std::string_view name);
  uint32_t child(uint32_t parent, uint32_t name);

  FlameTreeOptions options_;
  std::vector<FlameNode> nodes_;
  std::vector<std::string> names_;
  std::unordered_map<std::string_view, uint32_t> name_ids_;  // views into names_ strings' copies
  std::vector<std::unique_ptr<std::string>> name_storage_;
  // (parent << 32 | name) -> node, open addressing with linear probing: millions of lookups on
  // big profiles, where a node-based map spends its time in cache misses and frees.
  struct ChildSlot {
    uint64_t key = UINT64_MAX;
    uint32_t node = 0;
  };
  std::vector<ChildSlot> child_slots_;
  size_t child_count_ = 0;
  void grow_child_slots();
  std::vector<std::string_view> scratch_;
  std::string chain_scratch_;
  bool differential_ = false;
  double max_delta_ = 1;  // flamegraph.pl starts its maximum at 1
};

}  // namespace sonde::analysis
