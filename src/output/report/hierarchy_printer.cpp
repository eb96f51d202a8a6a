#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>

#include "analysis/report/hierarchy.hpp"
#include "output/report/entry_text.hpp"
#include "output/report/report_printer.hpp"

namespace sonde::output {

void print_hierarchy(std::FILE* out, const analysis::Hierarchy& hierarchy, analysis::ReportTables& tables,
                     const ReportLayout& layout, const std::vector<uint64_t>& totals, bool with_header) {
  const auto& nodes = hierarchy.nodes();
  const size_t levels = layout.keys.size();
  const size_t members = hierarchy.members();
  EntryText text(tables);
  auto ltrimmed = [](std::string_view view) {
    size_t first = view.find_first_not_of(' ');
    return std::string(first == std::string_view::npos ? std::string_view() : view.substr(first));
  };
  // Each level's column: as wide as its widest text (its header's at least), as without levels.
  std::vector<size_t> widths;
  bool any_unresolved = false;
  for (SortKey key : layout.keys) widths.push_back(analysis::sort_key_header(key).size());
  for (const analysis::HierarchyNode& node : nodes) {
    for (size_t k = 0; k < levels; ++k)
      widths[k] = std::max(widths[k], text.natural_width(layout.keys[k], *node.entry));
    any_unresolved |= !text.function(*node.entry).resolved;
  }
  for (size_t k = 0; k < levels; ++k)
    if (layout.keys[k] == SortKey::dso && any_unresolved) widths[k] = std::max<size_t>(widths[k], 16);
  // perf's HIERARCHY_INDENT: three columns a level.
  constexpr size_t kIndent = 3;
  struct Figure {
    std::string name;
    size_t width;  // of each member's figure
    bool percent;
    uint64_t analysis::GroupFigures::*field;
  };
  std::vector<Figure> figures;
  if (layout.children) {
    figures.push_back({"Children", 8, true, &analysis::GroupFigures::children_period});
    figures.push_back({"Self", 8, true, &analysis::GroupFigures::self_period});
  } else {
    figures.push_back({"Overhead", 8, true, &analysis::GroupFigures::self_period});
  }
  if (layout.show_cpu_utilization) {
    figures.push_back({"sys", 8, true, &analysis::GroupFigures::sys_period});
    figures.push_back({"usr", 8, true, &analysis::GroupFigures::usr_period});
  }
  if (layout.show_samples) figures.push_back({"Samples", 12, false, &analysis::GroupFigures::self_samples});
  if (layout.show_period) figures.push_back({"Period", 12, false, &analysis::GroupFigures::self_period});
  const size_t indent = (levels - 1) * kIndent;
  if (with_header) {
    std::string header = "# " + std::string(indent, ' ');
    std::string dots = "# " + std::string(indent, '.');
    for (size_t f = 0; f < figures.size(); ++f) {
      header += fmt::format("{}{:>{}}", f ? "  " : "", figures[f].name, figures[f].width * members);
      dots += (f ? ".." : "") + std::string(figures[f].width * members, '.');
    }
    std::string keys_header;
    size_t keys_width = 0;
    for (size_t k = 0; k < levels; ++k) {
      keys_header += (k ? " / " : "") + ltrimmed(analysis::sort_key_header(layout.keys[k]));
      keys_width = std::max(keys_width, k * kIndent + widths[k]);
    }
    keys_width = std::max(keys_width, keys_header.size());
    fmt::print(out, "{}  {}\n{}  {}\n#\n", header, keys_header, dots, std::string(keys_width, '.'));
  }
  // A leaf's call graph, as without levels (the leader's entry, in a group).
  std::unique_ptr<analysis::CallchainBuilder> builder;
  analysis::Histogram* graphed = hierarchy.graphed();
  if (layout.callchains && graphed && graphed->has_callchain())
    builder = std::make_unique<analysis::CallchainBuilder>(*graphed, tables.locations, layout.callchain,
                                                           graphed->total_period());
  std::string line;
  std::vector<bool> hidden(nodes.size(), false);
  for (uint32_t id : hierarchy.walk()) {
    const analysis::HierarchyNode& node = nodes[id];
    uint64_t shown = layout.children ? node.figures[0].children_period : node.figures[0].self_period;
    double percent = totals[0] ? static_cast<double>(shown) * 100.0 / static_cast<double>(totals[0]) : 0.0;
    if (hidden[id] || percent < layout.percent_limit) {
      for (uint32_t child : node.children) hidden[child] = true;
      continue;
    }
    line = "  " + std::string(node.depth * kIndent, ' ');
    for (size_t f = 0; f < figures.size(); ++f) {
      if (f) line += "  ";
      for (size_t m = 0; m < members; ++m) {
        uint64_t value = node.figures[m].*figures[f].field;
        if (figures[f].percent)
          line += fmt::format(
              " {:>6.2f}%",
              totals[m] ? static_cast<double>(value) * 100.0 / static_cast<double>(totals[m]) : 0.0);
        else
          line += fmt::format(" {:>11}", value);
      }
    }
    line += std::string(indent, ' ') + "  ";
    // perf aligns no level's text after it (hist_entry__snprintf_alignment) and trims it on the
    // left: only the keys that pad themselves (comm, dso, pid, parent) keep trailing spaces.
    line += ltrimmed(text.cell(layout.keys[node.depth], *node.entry, widths[node.depth], true));
    line += '\n';
    std::fputs(line.c_str(), out);
    if (!builder || !node.children.empty()) continue;
    std::optional<uint32_t> entry = hierarchy.graphed_entry(id);
    if (!entry) continue;
    analysis::CallTree tree = builder->build(*entry);
    print_callgraph(out, tree, tables.locations, layout.graph, graphed->total_period(), shown);
  }
}

}  // namespace sonde::output
