#include "output/report/callgraph_printer.hpp"

#include <fmt/format.h>

#include <unordered_map>

namespace sonde::output {

using analysis::CallchainMode;
using analysis::CallchainValue;
using analysis::CallNode;
using analysis::CallTree;

std::string callchain_function_name(const analysis::Function& function) {
  if (function.resolved) return function.shown_name();
  return function.ip ? fmt::format("{:#x}", function.ip) : "0";  // printf's %#lx
}

namespace {

class GraphPrinter {
 public:
  GraphPrinter(std::FILE* out, const CallTree& tree, const analysis::LocationTable& locations,
               const CallgraphStyle& style)
      : out_(out), tree_(tree), locations_(locations), style_(style) {}

  void value(uint64_t period, uint32_t count, uint64_t total) {
    switch (style_.value) {
      case CallchainValue::period:
        fmt::print(out_, "{}", period);
        break;
      case CallchainValue::count:
        fmt::print(out_, "{}", count);
        break;
      case CallchainValue::percent:
        fmt::print(out_, "{:.2f}%",
                   total ? static_cast<double>(period) * 100.0 / static_cast<double>(total) : 0.0);
        break;
    }
  }
  const std::string& name(uint32_t function) {
    auto& cached = names_[function];
    if (cached.empty()) cached = callchain_function_name(locations_.function(function));
    return cached;
  }
  void left_margin(int margin) {
    fmt::print(out_, "{:{}}", "", 12 + margin);
    printed_ = true;
  }

  void graph_line(int depth, uint64_t mask, int margin) {
    left_margin(margin);
    for (int i = 0; i < depth; ++i) std::fputs(mask & (1ull << i) ? "|          " : "           ", out_);
    std::fputc('\n', out_);
  }
  // One function of a node's run; the first (index 0) carries the node's value.
  void chain_line(uint64_t period, uint32_t count, const std::string& text, int depth, uint64_t mask,
                  size_t index, uint64_t total, int margin) {
    left_margin(margin);
    for (int i = 0; i < depth; ++i) {
      std::fputc(mask & (1ull << i) ? '|' : ' ', out_);
      if (index == 0 && i == depth - 1) {
        std::fputs("--", out_);
        value(period, count, total);
        std::fputs("--", out_);
      } else {
        std::fputs("          ", out_);
      }
    }
    std::fputs(text.c_str(), out_);
    std::fputc('\n', out_);
  }

  void children(uint32_t parent, uint64_t total, int depth, uint64_t mask, int margin) {
    const CallNode& node = tree_.nodes[parent];
    uint64_t new_mask = mask;
    uint64_t remaining = total;
    int64_t remaining_count = node.children_count;
    uint32_t printed = 0;
    bool fractal = style_.mode == CallchainMode::fractal;
    for (size_t c = 0; c < node.children.size(); ++c) {
      const CallNode& child = tree_.nodes[node.children[c]];
      remaining -= child.cumul();
      remaining_count -= child.cumul_count();
      bool last = c + 1 == node.children.size();
      if (last && (!fractal || !remaining)) new_mask &= ~(1ull << (depth - 1));
      graph_line(depth, mask, margin);
      for (size_t i = 0; i < child.functions.size(); ++i)
        chain_line(child.cumul(), child.cumul_count(), name(child.functions[i]), depth, new_mask, i, total,
                   margin);
      uint64_t child_total = fractal ? child.children_hit : total;
      children(node.children[c], child_total, depth + 1, new_mask | (1ull << depth), margin);
      if (++printed == style_.print_limit) break;
    }
    if (fractal && remaining && remaining != total) {
      // perf shows what the limit hid as one "[...]" line (not at all when counting samples
      // and none are left).
      if (style_.value == CallchainValue::count && !node.children.empty() && remaining_count <= 0) return;
      if (node.children.empty()) remaining_count = 0;
      new_mask &= ~(1ull << (depth - 1));
      chain_line(remaining, static_cast<uint32_t>(remaining_count), "[...]", depth, new_mask, 0, total,
                 margin);
    }
  }

  void graph(uint64_t total_period, uint64_t entry_period) {
    const CallNode& root = tree_.nodes[0];
    if (root.children.empty()) return;
    int margin = 0;
    uint32_t start = 0;
    const CallNode& first = tree_.nodes[root.children[0]];
    bool lone = root.children.size() == 1 && first.cumul() == entry_period;
    if (lone) {
      bool printed = false;
      uint32_t entries = 0;
      for (size_t i = 0; i < first.functions.size(); ++i) {
        if (i == 0 && style_.skip_first_function) continue;
        if (!printed) {
          left_margin(margin);
          std::fputs("|\n", out_);
          left_margin(margin);
          std::fputs("---", out_);
          margin += 3;
          printed = true;
        } else {
          left_margin(margin);
        }
        fmt::print(out_, "{}\n", name(first.functions[i]));
        if (++entries == style_.print_limit) break;
      }
      start = root.children[0];
    }
    if (style_.mode == CallchainMode::fractal) total_period = entry_period;
    children(start, total_period, 1, 1, margin);
    if (printed_) std::fputc('\n', out_);  // perf adds no blank line when it printed nothing
  }

  void path(uint32_t node, std::string& text, bool folded) {
    if (node == 0) return;
    path(tree_.nodes[node].parent, text, folded);
    for (uint32_t function : tree_.nodes[node].functions) {
      if (folded) {
        if (!text.empty()) text += ';';
        text += name(function);
      } else {
        text += "                ";
        text += name(function);
        text += '\n';
      }
    }
  }

  void flat(uint64_t total_period) {
    uint32_t printed = 0;
    for (uint32_t node : tree_.listed) {
      const CallNode& n = tree_.nodes[node];
      std::fputs("           ", out_);
      value(n.cumul(), n.cumul_count(), total_period);
      std::fputc('\n', out_);
      std::string text;
      path(node, text, false);
      std::fputs(text.c_str(), out_);
      std::fputc('\n', out_);
      if (++printed == style_.print_limit) break;
    }
  }

  void folded(uint64_t total_period) {
    uint32_t printed = 0;
    for (uint32_t node : tree_.listed) {
      const CallNode& n = tree_.nodes[node];
      value(n.hit, n.hit_count, total_period);
      std::fputc(' ', out_);
      std::string text;
      path(node, text, true);
      std::fputs(text.c_str(), out_);
      std::fputc('\n', out_);
      if (++printed == style_.print_limit) break;
    }
  }

 private:
  std::FILE* out_;
  const CallTree& tree_;
  const analysis::LocationTable& locations_;
  const CallgraphStyle& style_;
  std::unordered_map<uint32_t, std::string> names_;
  bool printed_ = false;
};

}  // namespace

void print_callgraph(std::FILE* out, const CallTree& tree, const analysis::LocationTable& locations,
                     const CallgraphStyle& style, uint64_t total_period, uint64_t entry_period) {
  GraphPrinter printer(out, tree, locations, style);
  switch (style.mode) {
    case CallchainMode::graph:
    case CallchainMode::fractal:
      printer.graph(total_period, entry_period);
      break;
    case CallchainMode::flat:
      printer.flat(total_period);
      break;
    case CallchainMode::folded:
      printer.folded(total_period);
      break;
  }
}

}  // namespace sonde::output
