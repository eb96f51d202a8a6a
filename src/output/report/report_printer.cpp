#include "output/report/report_printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <unordered_map>

#include "analysis/report/hist_key_text.hpp"
#include "output/report/entry_text.hpp"

namespace sonde::output {

using analysis::HistEntry;
using analysis::SortKey;

std::string sample_count_text(uint64_t samples, char no_unit) {
  // perf's convert_unit: K, M, G by thousands.
  char unit = no_unit;
  for (char next : {'K', 'M', 'G'}) {
    if (samples > 1000) {
      samples /= 1000;
      unit = next;
    }
  }
  return unit ? fmt::format("{}{}", samples, unit) : fmt::format("{}", samples);
}

void print_event_header(std::FILE* out, uint64_t samples, const std::string& event_name,
                        uint64_t total_period, const std::string& time_slices, bool several) {
  // A space when it did not divide, as perf's header prints it.
  fmt::print(out, "# Samples: {} of event{} '{}'", sample_count_text(samples, ' '), several ? "s" : "",
             event_name);
  if (!time_slices.empty()) fmt::print(out, " (time slices: {})", time_slices);
  fmt::print(out, "\n");
  fmt::print(out, "# Event count (approx.): {}\n", total_period);
}

namespace {

// perf formats a payload for the trace key only when its entry is compared on that key (its
// keys before it equal another sample's), and sizes the column from the payloads formatted by
// then: an entry alone in its group of earlier keys, with one sample, is printed but not measured
// (in children mode each callchain entry is compared with the sample's own: all are measured).
std::vector<bool> trace_measured(const analysis::Histogram& histogram, const analysis::ReportTables& tables) {
  const auto& keys = histogram.options().keys;
  const auto& entries = histogram.entries();
  auto trace_at = std::find(keys.begin(), keys.end(), SortKey::trace);
  std::vector<bool> measured(entries.size(), true);
  if (trace_at == keys.end() || histogram.options().children) return measured;
  std::vector<std::string> group(entries.size());
  std::unordered_map<std::string, uint64_t> samples;
  for (size_t i = 0; i < entries.size(); ++i) {
    for (auto k = keys.begin(); k != trace_at; ++k)
      group[i] += analysis::hist_key_text(tables, entries[i], *k) + '\0';
    samples[group[i]] += entries[i].self_samples;
  }
  for (size_t i = 0; i < entries.size(); ++i) measured[i] = samples[group[i]] >= 2;
  return measured;
}

}  // namespace

namespace {

// Whether the report's entry filters show an entry: --symbol-filter, --exclude-other (--dsos and
// --symbols act on samples, in the histogram).
bool entry_visible(EntryText& text, const HistEntry& e, const analysis::ReportFilters* filters) {
  if (!filters) return true;
  const analysis::Function& f = text.function(e);
  // perf's --symbol-filter: a part of the name, unresolved entries by their shown address.
  if (!filters->symbol_filter.empty() &&
      (!f.resolved || f.name.find(filters->symbol_filter) == std::string::npos))
    return false;
  if (filters->exclude_other && e.parent == analysis::kNoId) return false;
  return true;
}

}  // namespace

VisibleTotals visible_totals(analysis::Histogram& histogram, analysis::ReportTables& tables,
                             const ReportLayout& layout) {
  EntryText text(tables);
  VisibleTotals totals;
  const auto& entries = histogram.entries();
  for (uint32_t id : histogram.order()) {
    const HistEntry& e = entries[id];
    if (!entry_visible(text, e, layout.filters)) continue;
    totals.samples += e.self_samples;
    totals.period += e.self_period;
  }
  return totals;
}

namespace {

// What emit_histogram prints: one histogram's entries, or an event group's rows (each with
// every member's figures side by side, percentages of each member's total).
struct HistogramSource {
  analysis::Histogram& histogram;  // the leader's, for a group: its call graphs
  const analysis::GroupHistogram* group = nullptr;
  std::vector<uint64_t> totals;  // one per member

  size_t members() const { return group ? group->member_count() : 1; }
  const std::vector<uint32_t>& order() const { return group ? group->order() : histogram.order(); }
  const HistEntry& entry(uint32_t row) const { return group ? group->entry(row) : histogram.entries()[row]; }
  analysis::GroupFigures figures(uint32_t row, size_t member) const {
    if (group) return group->figures(row, member);
    const HistEntry& e = histogram.entries()[row];
    return {e.children_period, e.self_period, e.sys_period, e.usr_period, e.self_samples};
  }
  // The row's entry in the leader's histogram (whose call graph it shows), if it is one.
  std::optional<uint32_t> leader_entry(uint32_t row) const {
    if (!group) return row;
    if (group->entry_member(row) != 0) return std::nullopt;
    return group->entry_index(row);
  }
};

// How a figure's column is headed, how wide each of its figures is, and what it shows.
struct FigureColumn {
  const char* name;
  size_t width;
  bool percent;
  uint64_t analysis::GroupFigures::*field;
};
FigureColumn figure_column(analysis::ReportFigure figure, bool children) {
  const char* name = children ? "Self" : "Overhead";
  size_t width = 8;
  switch (figure) {
    case analysis::ReportFigure::overhead_children:
      name = "Children";
      break;
    case analysis::ReportFigure::overhead_sys:
      name = "sys";
      break;
    case analysis::ReportFigure::overhead_us:
      name = "usr";
      break;
    case analysis::ReportFigure::sample:
      name = "Samples", width = 12;
      break;
    case analysis::ReportFigure::period:
      name = "Period", width = 12;
      break;
    case analysis::ReportFigure::overhead:
      break;
  }
  return {name, width, width == 8, analysis::figure_field(figure)};
}

// The columns in order: -F's, or perf's default figures then the keys.
std::vector<analysis::ReportField> layout_columns(const ReportLayout& layout) {
  if (!layout.fields.empty()) return layout.fields;
  using analysis::ReportFigure;
  std::vector<analysis::ReportField> columns;
  auto figure = [&](ReportFigure which) { columns.push_back({true, which, SortKey::comm}); };
  if (layout.children) figure(ReportFigure::overhead_children);
  figure(ReportFigure::overhead);
  if (layout.show_cpu_utilization) {
    figure(ReportFigure::overhead_sys);
    figure(ReportFigure::overhead_us);
  }
  if (layout.show_samples) figure(ReportFigure::sample);
  if (layout.show_period) figure(ReportFigure::period);
  for (SortKey key : layout.keys) columns.push_back({false, ReportFigure::overhead, key});
  return columns;
}

// print_histogram's work; with `rows`, each entry goes there (its line, its call graph's text)
// instead of to `out`.
void emit_histogram(std::FILE* out, const HistogramSource& source, analysis::ReportTables& tables,
                    const ReportLayout& layout, bool with_header, HistogramRows* collected) {
  analysis::Histogram& histogram = source.histogram;
  const size_t members = source.members();
  EntryText text(tables);
  auto visible = [&](const HistEntry& e) { return entry_visible(text, e, layout.filters); };
  // -t: cells joined by the separator (still padded to their columns, as perf pads them).
  const bool separated = layout.field_separator.has_value();
  const std::string gap = separated ? *layout.field_separator : "  ";

  // Column widths: at least the header, else the widest value (perf's hists__calc_col_len).
  std::vector<size_t> widths;
  bool any_unresolved = false;
  for (SortKey key : layout.keys) widths.push_back(analysis::sort_key_header(key).size());
  std::vector<bool> measured =
      source.group ? std::vector<bool>(source.group->row_count(), true) : trace_measured(histogram, tables);
  size_t measured_rows = 0;
  for (uint32_t id : source.order()) {
    const HistEntry& e = source.entry(id);
    if (!visible(e)) continue;
    if (layout.max_entries != 0 && measured_rows++ == layout.max_entries) break;
    for (size_t k = 0; k < layout.keys.size(); ++k) {
      if (layout.keys[k] == SortKey::trace && !measured[id]) continue;
      widths[k] = std::max(widths[k], text.natural_width(layout.keys[k], e));
    }
    any_unresolved |= !text.function(e).resolved;
  }
  for (size_t k = 0; k < layout.keys.size(); ++k)
    if (layout.keys[k] == SortKey::dso && any_unresolved) widths[k] = std::max<size_t>(widths[k], 16);

  std::string header = "# ";
  std::string dots = "# ";
  // --column-widths: the columns' widths in order, 0 for the natural one; a figure's column
  // takes it but stays as wide as its header, a key's is set (header and cells cut to it), as
  // perf's user_len.
  size_t column = 0;
  std::vector<size_t> figure_user_widths, figure_widths;
  // A figure's column holds one figure per group member, each `width` wide.
  auto add_column = [&](std::string name, size_t width, bool right) {
    size_t user = column < layout.column_widths.size() && members == 1 ? layout.column_widths[column] : 0;
    ++column;
    if (right) {
      if (user != 0) width = std::max(user, name.size());
      figure_user_widths.push_back(user);
      figure_widths.push_back(width);
      width *= members;
    } else if (user != 0) {
      width = user;
      if (name.size() > width) name.resize(width);
    }
    if (header.size() > 2) {
      header += gap;
      dots += "  ";
    }
    header += right ? fmt::format("{:>{}}", name, width) : fmt::format("{:<{}}", name, width);
    dots += std::string(width, '.');
    return width;
  };
  // Each column in order; a key's is the next of layout.keys.
  const std::vector<analysis::ReportField> columns = layout_columns(layout);
  const bool self_named = layout.self_named;
  std::vector<bool> cut(layout.keys.size(), false);
  for (size_t c = 0, k = 0; c < columns.size(); ++c) {
    if (columns[c].is_figure) {
      FigureColumn figure_of = figure_column(columns[c].figure, self_named);
      add_column(figure_of.name, figure_of.width, true);
      continue;
    }
    cut[k] = column < layout.column_widths.size() && layout.column_widths[column] != 0;
    widths[k] = add_column(std::string(analysis::sort_key_header(layout.keys[k])), widths[k], false);
    ++k;
  }
  if (collected) collected->header = "  " + header.substr(2);
  if (with_header && separated) fmt::print(out, "{}\n", header);
  if (with_header && !separated) fmt::print(out, "{}\n{}\n#\n", header, dots);

  std::unique_ptr<analysis::CallchainBuilder> builder;
  // An event recorded without callchains (beside one with them) shows no graph, as in perf.
  if (layout.callchains && histogram.has_callchain())
    builder = std::make_unique<analysis::CallchainBuilder>(histogram, tables.locations, layout.callchain,
                                                           histogram.total_period());
  uint64_t min_hit = static_cast<uint64_t>(static_cast<double>(histogram.total_period()) *
                                           (layout.callchain.min_percent / 100.0));
  std::string line;
  size_t rows = 0;
  for (uint32_t id : source.order()) {
    const HistEntry& e = source.entry(id);
    const analysis::GroupFigures leader = source.figures(id, 0);
    const uint64_t total = source.totals[0];
    uint64_t shown_period = layout.children ? leader.children_period : leader.self_period;
    double percent = total ? static_cast<double>(shown_period) * 100.0 / static_cast<double>(total) : 0.0;
    if (percent < layout.percent_limit || !visible(e)) continue;
    if (layout.max_entries != 0 && rows++ == layout.max_entries) break;
    line.clear();
    // perf's first cell has no separator before it.
    size_t figure = 0;
    auto cell = [&](const std::string& text_of_cell) {
      line += separated && line.empty() ? "" : gap;
      line += text_of_cell;
    };
    // perf's figure cells (hpp__fmt): a space, the figure right-aligned in the column's width (its
    // --column-widths one when given) less the space and the % sign, then padded to the column.
    auto figure_text = [&](std::string text_of_figure, size_t natural) {
      size_t column_width = figure < figure_widths.size() ? figure_widths[figure] : natural;
      ++figure;
      if (text_of_figure.size() < column_width)
        text_of_figure.append(column_width - text_of_figure.size(), ' ');
      return text_of_figure;
    };
    auto user_width = [&](size_t natural) {
      size_t user = figure < figure_user_widths.size() ? figure_user_widths[figure] : 0;
      return user != 0 ? user : natural;
    };
    // Under -t: a space and the figure left-aligned in seven.
    auto percent_text = [&](uint64_t period, uint64_t of) {
      double value = of ? static_cast<double>(period) * 100.0 / static_cast<double>(of) : 0.0;
      if (separated) return fmt::format(" {:<7}", fmt::format("{:.2f}%", value));
      size_t len = user_width(8);
      return figure_text(fmt::format(" {:>{}.2f}%", value, len >= 2 ? len - 2 : 0), 8);
    };
    // Counts likewise: right-aligned, or under -t a space and the figure left-aligned.
    auto count_text = [&](uint64_t value, uint64_t) {
      if (separated) return fmt::format(" {:<11}", value);
      size_t len = user_width(12);
      return figure_text(fmt::format(" {:>{}}", value, len >= 1 ? len - 1 : 0), 12);
    };
    // One column: each member's figure, side by side.
    auto figure_cell = [&](auto&& format, uint64_t analysis::GroupFigures::*field) {
      const size_t column_figure = figure;
      std::string joined;
      for (size_t m = 0; m < members; ++m) {
        figure = column_figure;
        joined += format(source.figures(id, m).*field, source.totals[m]);
      }
      cell(joined);
    };
    for (size_t c = 0, k = 0; c < columns.size(); ++c) {
      if (columns[c].is_figure) {
        FigureColumn figure_of = figure_column(columns[c].figure, self_named);
        if (columns[c].figure == analysis::ReportFigure::overhead_children && !layout.children) {
          // perf's Children column outside children mode.
          cell(fmt::format("{:<{}}", fmt::format("{:>8}", "N/A"), 8 * members));
          ++figure;
          continue;
        }
        if (figure_of.percent)
          figure_cell(percent_text, figure_of.field);
        else
          figure_cell(count_text, figure_of.field);
        continue;
      }
      std::string key_text = text.cell(layout.keys[k], e, widths[k], c + 1 == columns.size());
      // perf's sym cell prints "[x] " first and the name in what is left: nothing left, no cut.
      bool cuttable = layout.keys[k] != SortKey::sym || widths[k] >= 4;
      if (cut[k] && cuttable && key_text.size() > widths[k]) key_text.resize(widths[k]);
      // perf's repsep_snprintf: the separator's first character inside a name becomes '.'.
      if (separated && !gap.empty()) std::replace(key_text.begin(), key_text.end(), gap[0], '.');
      cell(key_text);
      ++k;
    }
    if (layout.max_columns != 0 && line.size() >= layout.max_columns) line.resize(layout.max_columns - 1);
    if (collected) collected->rows.push_back({id, line, {}});
    line += '\n';
    if (!collected) std::fputs(line.c_str(), out);
    if (!builder) continue;
    // Nothing of a chain below perf's minimum can show: skip building it.
    bool relative = layout.callchain.mode == analysis::CallchainMode::fractal;
    if (!relative && shown_period < min_hit) continue;
    std::optional<uint32_t> graphed = source.leader_entry(id);
    if (!graphed) continue;
    analysis::CallTree tree = builder->build(*graphed);
    if (!collected) {
      print_callgraph(out, tree, tables.locations, layout.graph, histogram.total_period(), shown_period);
      continue;
    }
    char* graph_text = nullptr;
    size_t size = 0;
    std::FILE* graph = open_memstream(&graph_text, &size);
    if (graph == nullptr) continue;
    print_callgraph(graph, tree, tables.locations, layout.graph, histogram.total_period(), shown_period);
    std::fclose(graph);
    std::string_view lines(graph_text, size);
    while (!lines.empty()) {
      size_t end = lines.find('\n');
      std::string_view one = lines.substr(0, end);
      if (!one.empty()) collected->rows.back().graph.emplace_back(one);
      lines.remove_prefix(end == std::string_view::npos ? lines.size() : end + 1);
    }
    std::free(graph_text);
  }
}

}  // namespace

void print_histogram(std::FILE* out, analysis::Histogram& histogram, analysis::ReportTables& tables,
                     const ReportLayout& layout, uint64_t total, bool with_header) {
  emit_histogram(out, {histogram, nullptr, {total}}, tables, layout, with_header, nullptr);
}

void print_group_histogram(std::FILE* out, const analysis::GroupHistogram& group,
                           analysis::ReportTables& tables, const ReportLayout& layout,
                           const std::vector<uint64_t>& totals, bool with_header) {
  emit_histogram(out, {group.member(0), &group, totals}, tables, layout, with_header, nullptr);
}

HistogramRows histogram_rows(analysis::Histogram& histogram, analysis::ReportTables& tables,
                             const ReportLayout& layout, uint64_t total) {
  HistogramRows rows;
  emit_histogram(nullptr, {histogram, nullptr, {total}}, tables, layout, false, &rows);
  return rows;
}

}  // namespace sonde::output
