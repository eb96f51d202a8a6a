#include "output/report/report_output.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/report/group_hist.hpp"
#include "output/perf_header.hpp"
#include "output/report/report_printer.hpp"

namespace sonde::output {

using analysis::SortKey;

ReportLayout report_layout(const analysis::Report& report, const analysis::ReportRequest& request,
                           std::vector<std::string>* elided_lines) {
  const analysis::ReportFilters& filters = request.filters;
  ReportLayout layout;
  // perf drops a column whose filter admits a single value, and names the value instead.
  std::vector<std::string> elided;
  const auto& keys = report.keys;
  auto elide = [&](SortKey key, const std::vector<std::string>& list, const char* name) {
    if (list.size() != 1 || std::find(keys.begin(), keys.end(), key) == keys.end()) return false;
    elided.push_back(fmt::format("# {}: {}\n", name, list[0]));
    return true;
  };
  bool elide_dso = elide(SortKey::dso, filters.dsos, "dso");
  bool elide_comm = elide(SortKey::comm, filters.comms, "comm");
  bool elide_sym = elide(SortKey::sym, filters.symbols, "symbol");
  for (SortKey key : keys) {
    if ((key == SortKey::dso && elide_dso) || (key == SortKey::comm && elide_comm) ||
        (key == SortKey::sym && elide_sym))
      continue;
    layout.keys.push_back(key);
  }
  if (layout.keys.empty()) layout.keys.push_back(keys.front());
  if (!report.columns.empty()) {
    layout.fields = report.columns;
    layout.keys.clear();
    for (const analysis::ReportField& field : report.columns)
      if (!field.is_figure) layout.keys.push_back(field.key);
  }
  layout.children = report.children;
  layout.show_samples = request.layout.show_samples;
  layout.show_cpu_utilization = request.layout.show_cpu_utilization;
  layout.column_widths = request.layout.column_widths;
  layout.show_period = request.layout.show_period;
  layout.percent_limit = request.percent_limit;
  layout.callchains = report.callchains;
  layout.callchain = request.callchain;
  // --percent-limit also limits the call graph, as in perf.
  if (request.percent_limit > 0) layout.callchain.min_percent = request.percent_limit;
  layout.graph.mode = layout.callchain.mode;
  layout.graph.value = layout.callchain.value;
  layout.graph.print_limit = layout.callchain.print_limit;
  // perf leaves an entry's own function out of its graph when sym is the first -s key (not with -F).
  layout.graph.skip_first_function = keys.front() == SortKey::sym && !request.fields;
  layout.self_named = report.children && (!request.fields || !request.fields->strict);
  layout.filters = &filters;
  layout.field_separator = request.field_separator;

  if (elided_lines) *elided_lines = std::move(elided);
  return layout;
}

void print_report(std::FILE* out, analysis::Report& report, const analysis::ReportRequest& request) {
  if (request.header || request.header_only)
    print_header_info(out, report.session.reader(), request.input, request.show_info);
  if (request.header_only) return;
  std::vector<std::string> elided;
  ReportLayout layout = report_layout(report, request, &elided);
  const analysis::ReportFilters& filters = request.filters;
  if (!request.quiet) {
    if (!request.header)
      std::fputs("# To display the perf.data header info, please use --header/--header-only options.\n#\n",
                 out);
    for (const std::string& line : elided) std::fputs(line.c_str(), out);
    fmt::print(out, "#\n# Total Lost Samples: {}\n#\n", report.lost_samples);
  }
  // --percentage relative: the shown entries are the whole, in the header and the percentages.
  auto totals_of = [&](analysis::EventReport& event) {
    if (request.relative_percentage) return visible_totals(event.histogram, report.tables, layout);
    return VisibleTotals{event.histogram.samples(), event.histogram.total_period()};
  };
  auto print_header = [&](uint64_t samples, const std::string& name, uint64_t period, bool several) {
    if (request.quiet) return;
    print_event_header(out, samples, name, period, request.time, several);
    if (filters.socket) fmt::print(out, "# Processor Socket: {}\n", *filters.socket);
    std::fputs("#\n", out);
  };
  const auto& file_groups = report.session.reader().features().groups;
  const bool by_event = report.wall_kinds.empty();
  const auto groups = by_event
                          ? analysis::report_event_groups(file_groups, report.events.size(), request.group)
                          : std::vector<analysis::EventGroupSpan>{};
  // perf says "events" for a file group's leader even when its members are shown apart.
  const auto file_leaders =
      by_event ? analysis::report_event_groups(file_groups, report.events.size(), std::nullopt)
               : std::vector<analysis::EventGroupSpan>{};
  for (size_t i = 0; i < report.events.size(); ++i) {
    auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.leader == i; });
    if (group != groups.end()) {
      std::vector<analysis::Histogram*> members;
      std::vector<uint64_t> totals;
      std::string names;
      VisibleTotals sum;
      uint64_t recorded = 0;  // the members' samples, whatever the filters show
      for (size_t m = 0; m < group->members; ++m) {
        analysis::EventReport& member = report.events[i + m];
        members.push_back(&member.histogram);
        recorded += member.histogram.samples();
        VisibleTotals member_totals = totals_of(member);
        totals.push_back(member_totals.period);
        sum.samples += member_totals.samples;
        sum.period += member_totals.period;
        names += (m ? ", " : "") + member.name;
      }
      i += group->members - 1;
      if (recorded == 0) continue;
      // perf's evsel__group_desc: "NAME { a, b }" ("anon group" unnamed), a forced group's bare.
      std::string name =
          group->forced ? names
                        : fmt::format("{} {{ {} }}", group->name.empty() ? "anon group" : group->name, names);
      print_header(sum.samples, name, sum.period, true);
      const analysis::HistOptions& options = members.front()->options();
      analysis::GroupHistogram rows(members, report.tables, options, request.group_sort_index);
      if (request.hierarchy)
        print_hierarchy(out, analysis::Hierarchy(rows, report.tables, options, request.group_sort_index),
                        report.tables, layout, totals, !request.quiet);
      else
        print_group_histogram(out, rows, report.tables, layout, totals, !request.quiet);
      std::fputs("\n\n", out);
      continue;
    }
    analysis::EventReport& event = report.events[i];
    if (event.histogram.samples() == 0) continue;
    VisibleTotals totals = totals_of(event);
    bool several =
        std::any_of(file_leaders.begin(), file_leaders.end(), [&](const auto& g) { return g.leader == i; });
    print_header(totals.samples, event.name, totals.period, several);
    if (request.hierarchy)
      print_hierarchy(out, analysis::Hierarchy(event.histogram, report.tables, event.histogram.options()),
                      report.tables, layout, {totals.period}, !request.quiet);
    else
      print_histogram(out, event.histogram, report.tables, layout, totals.period, !request.quiet);
    std::fputs("\n\n", out);
  }
  if (!request.quiet)
    std::fputs("#\n# (Tip: sonde report -n shows the number of samples of each entry)\n#\n", out);
}

}  // namespace sonde::output
