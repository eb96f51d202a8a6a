#include "symbols/perf_symbol_tree.hpp"

namespace sonde::symbols {

void PerfSymbolTree::rotate_left(uint32_t x) {
  uint32_t y = nodes_[x].right;
  nodes_[x].right = nodes_[y].left;
  if (nodes_[y].left != kNil) nodes_[nodes_[y].left].parent = x;
  transplant(x, y);
  nodes_[y].left = x;
  nodes_[x].parent = y;
}

void PerfSymbolTree::rotate_right(uint32_t x) {
  uint32_t y = nodes_[x].left;
  nodes_[x].left = nodes_[y].right;
  if (nodes_[y].right != kNil) nodes_[nodes_[y].right].parent = x;
  transplant(x, y);
  nodes_[y].right = x;
  nodes_[x].parent = y;
}

// Puts `v` where `u` hangs (v may be nil); u's own links are left to the caller.
void PerfSymbolTree::transplant(uint32_t u, uint32_t v) {
  uint32_t parent = nodes_[u].parent;
  if (parent == kNil)
    root_ = v;
  else if (nodes_[parent].left == u)
    nodes_[parent].left = v;
  else
    nodes_[parent].right = v;
  if (v != kNil) nodes_[v].parent = parent;
}

uint32_t PerfSymbolTree::minimum(uint32_t n) const {
  while (nodes_[n].left != kNil) n = nodes_[n].left;
  return n;
}

uint32_t PerfSymbolTree::insert(uint64_t start, uint64_t end, uint32_t payload) {
  uint32_t z = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(Node{start, end, payload});
  uint32_t parent = kNil;
  for (uint32_t x = root_; x != kNil;) {
    parent = x;
    x = start < nodes_[x].start ? nodes_[x].left : nodes_[x].right;
  }
  nodes_[z].parent = parent;
  if (parent == kNil)
    root_ = z;
  else if (start < nodes_[parent].start)
    nodes_[parent].left = z;
  else
    nodes_[parent].right = z;
  // The red-black insert fix-up (the kernel's rb_insert_color).
  while (red(nodes_[z].parent)) {
    uint32_t p = nodes_[z].parent, g = nodes_[p].parent;
    if (p == nodes_[g].left) {
      uint32_t uncle = nodes_[g].right;
      if (red(uncle)) {
        nodes_[p].red = false;
        nodes_[uncle].red = false;
        nodes_[g].red = true;
        z = g;
        continue;
      }
      if (z == nodes_[p].right) {
        z = p;
        rotate_left(z);
        p = nodes_[z].parent;
      }
      nodes_[p].red = false;
      nodes_[g].red = true;
      rotate_right(g);
    } else {
      uint32_t uncle = nodes_[g].left;
      if (red(uncle)) {
        nodes_[p].red = false;
        nodes_[uncle].red = false;
        nodes_[g].red = true;
        z = g;
        continue;
      }
      if (z == nodes_[p].left) {
        z = p;
        rotate_right(z);
        p = nodes_[z].parent;
      }
      nodes_[p].red = false;
      nodes_[g].red = true;
      rotate_left(g);
    }
  }
  nodes_[root_].red = false;
  return static_cast<uint32_t>(nodes_.size() - 1);
}

void PerfSymbolTree::erase(uint32_t z) {
  // The successor takes a node with two children's place and colour, as rb_erase does.
  uint32_t x, x_parent;
  bool removed_red = nodes_[z].red;
  if (nodes_[z].left == kNil) {
    x = nodes_[z].right;
    x_parent = nodes_[z].parent;
    transplant(z, x);
  } else if (nodes_[z].right == kNil) {
    x = nodes_[z].left;
    x_parent = nodes_[z].parent;
    transplant(z, x);
  } else {
    uint32_t y = minimum(nodes_[z].right);
    removed_red = nodes_[y].red;
    x = nodes_[y].right;
    if (nodes_[y].parent == z) {
      x_parent = y;
    } else {
      x_parent = nodes_[y].parent;
      transplant(y, x);
      nodes_[y].right = nodes_[z].right;
      nodes_[nodes_[y].right].parent = y;
    }
    transplant(z, y);
    nodes_[y].left = nodes_[z].left;
    nodes_[nodes_[y].left].parent = y;
    nodes_[y].red = nodes_[z].red;
  }
  nodes_[z].live = false;
  nodes_[z].left = nodes_[z].right = nodes_[z].parent = kNil;
  if (!removed_red) erase_fixup(x, x_parent);
}

void PerfSymbolTree::erase_fixup(uint32_t x, uint32_t parent) {
  while (x != root_ && !red(x)) {
    if (x == nodes_[parent].left) {
      uint32_t w = nodes_[parent].right;
      if (red(w)) {
        nodes_[w].red = false;
        nodes_[parent].red = true;
        rotate_left(parent);
        w = nodes_[parent].right;
      }
      if (!red(nodes_[w].left) && !red(nodes_[w].right)) {
        nodes_[w].red = true;
        x = parent;
        parent = nodes_[x].parent;
      } else {
        if (!red(nodes_[w].right)) {
          nodes_[nodes_[w].left].red = false;
          nodes_[w].red = true;
          rotate_right(w);
          w = nodes_[parent].right;
        }
        nodes_[w].red = nodes_[parent].red;
        nodes_[parent].red = false;
        if (nodes_[w].right != kNil) nodes_[nodes_[w].right].red = false;
        rotate_left(parent);
        x = root_;
      }
    } else {
      uint32_t w = nodes_[parent].left;
      if (red(w)) {
        nodes_[w].red = false;
        nodes_[parent].red = true;
        rotate_right(parent);
        w = nodes_[parent].left;
      }
      if (!red(nodes_[w].left) && !red(nodes_[w].right)) {
        nodes_[w].red = true;
        x = parent;
        parent = nodes_[x].parent;
      } else {
        if (!red(nodes_[w].left)) {
          nodes_[nodes_[w].right].red = false;
          nodes_[w].red = true;
          rotate_left(w);
          w = nodes_[parent].left;
        }
        nodes_[w].red = nodes_[parent].red;
        nodes_[parent].red = false;
        if (nodes_[w].left != kNil) nodes_[nodes_[w].left].red = false;
        rotate_right(parent);
        x = root_;
      }
    }
  }
  if (x != kNil) nodes_[x].red = false;
}

std::optional<uint64_t> PerfSymbolTree::find_start(uint64_t addr) const {
  for (uint32_t n = root_; n != kNil;) {
    const Node& s = nodes_[n];
    if (addr < s.start)
      n = s.left;
    else if (addr > s.end || (addr == s.end && addr != s.start))
      n = s.right;
    else
      return s.start;
  }
  return std::nullopt;
}

uint32_t PerfSymbolTree::first() const { return root_ == kNil ? kNil : minimum(root_); }

uint32_t PerfSymbolTree::next(uint32_t node) const {
  if (nodes_[node].right != kNil) return minimum(nodes_[node].right);
  uint32_t parent = nodes_[node].parent;
  while (parent != kNil && node == nodes_[parent].right) {
    node = parent;
    parent = nodes_[parent].parent;
  }
  return parent;
}

}  // namespace sonde::symbols
