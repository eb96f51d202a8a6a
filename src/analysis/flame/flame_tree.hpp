#pragma once
// The merged call tree a flame graph draws: one node per distinct path from the root, its value
// the sum of the stacks through it. Built from folded lines, or sample by sample from the
// collapser. Flame charts (time order) merge a stack only with the one before it, as
// flamegraph.pl does.
//
// Nodes live in one array of small fixed records, no per-node child vectors: each node links
// its children as a list (latest first); a parent with many children also finds them through a
// hash of (parent, name id). Children are ordered by name only when asked for, so a big profile
// costs no allocation per node and no layout pass over nodes the graph never draws.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sonde::analysis {

struct FlameNode {    // 24 bytes: big profiles have tens of millions
  uint32_t name = 0;  // index into FlameTree::names(); 0 is the root's ""
  uint32_t child_count = 0;
  uint32_t first_child = 0;   // the child added last; 0: none (the root is nobody's child)
  uint32_t next_sibling = 0;  // the parent's child added before this one; 0: none
  double value = 0;           // samples through this frame (for differential input: the "after" profile)
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
  // One stack as ids into `names`, a producer's interned names (the same vector every call,
  // only ever appended to), root first: each name is interned here once, not per stack.
  void add(std::span<const uint32_t> ids, const std::vector<std::string>& names, double value);
  // A folded stack "a;b;c".
  void add_folded(std::string_view stack, double value, const double* delta = nullptr);
  // Ranks the names for ordering children. Call once after the last add, before children().
  void finish();

  // Stacks deeper than this are cut: a runaway recursion or a damaged line (5 million frames)
  // would draw a picture taller than any screen into a file of hundreds of MB. The frames past
  // kMaxDepth - 1 (from the root as drawn) become one frame, "[N more frames]".
  static constexpr size_t kMaxDepth = 10000;
  size_t cut_stacks() const { return cut_stacks_; }
  size_t deepest_stack() const { return deepest_stack_; }

  const std::vector<FlameNode>& nodes() const { return nodes_; }
  const std::vector<std::string>& names() const { return names_; }
  // A node's children in drawing order (by name; input order for flame charts), into `out`.
  void children(uint32_t node, std::vector<uint32_t>& out) const;
  std::vector<uint32_t> children(uint32_t node) const;
  double total() const { return nodes_[0].value; }
  // Differential input: after - before of the stacks ending at `node`.
  double delta(uint32_t node) const { return node < deltas_.size() ? deltas_[node] : 0; }
  bool differential() const { return differential_; }
  double max_delta() const { return max_delta_; }

 private:
  uint32_t intern(std::string_view name);
  uint32_t child(uint32_t parent, uint32_t name);
  uint32_t new_node(uint32_t parent, uint32_t name);
  void index_child(uint32_t parent, uint32_t name, uint32_t node);
  // One frame below `node` on the stack being added: its node, now on path_, with the value.
  uint32_t extend(uint32_t node, uint32_t name, double value);

  FlameTreeOptions options_;
  size_t cut_stacks_ = 0, deepest_stack_ = 0;
  std::vector<std::string_view> capped_;  // a cut stack's frames
  std::string cut_frame_;                 // and its "[N more frames]"
  std::vector<FlameNode> nodes_;
  std::vector<double> deltas_;  // by node, once the input is differential
  std::vector<std::string> names_;
  std::unordered_map<std::string_view, uint32_t> name_ids_;  // views into names_ strings' copies
  std::vector<std::unique_ptr<std::string>> name_storage_;
  std::vector<uint32_t> name_rank_;  // after finish(): name id -> position in byte order
  // Parents with more children than this find them through child_slots_ instead of a walk.
  static constexpr uint32_t kListedChildren = 8;
  // (parent << 32 | name) -> node for those parents' children, open addressing with linear
  // probing: a node-based map spends its time in cache misses and frees.
  struct ChildSlot {
    uint64_t key = UINT64_MAX;
    uint32_t node = 0;
  };
  std::vector<ChildSlot> child_slots_;
  size_t child_count_ = 0;
  void grow_child_slots();
  // The node path of the previous stack (path_[d] at depth d + 1): sorted input shares long
  // prefixes with the stack before it, which then cost a compare per frame, no lookup. For
  // flame charts this is the merge rule itself.
  std::vector<uint32_t> path_;
  std::vector<std::string_view> scratch_;
  std::vector<uint32_t> from_producer_;  // add(ids, names): producer's name id -> ours (or none yet)
  std::string chain_scratch_;
  bool differential_ = false;
  double max_delta_ = 1;  // flamegraph.pl starts its maximum at 1
};

}  // namespace sonde::analysis
