#include "analysis/diff/profile_diff.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/report/hist_key_text.hpp"
#include "analysis/report/report_run.hpp"
#include "base/strings.hpp"

namespace sonde::analysis {

namespace {

// One file's entries of one event, by key text.
struct FileEvent {
  std::string name;
  uint32_t type = 0;  // perf pairs events by their attr's type and config, not by name
  uint64_t config = 0;
  uint64_t total = 0;
  std::map<std::vector<std::string>, uint64_t> periods;
};

Result<std::vector<FileEvent>> read_file(const std::string& path, const DiffRequest& request,
                                         Diagnostics& diagnostics) {
  ReportRequest report_request;
  report_request.input = path;
  report_request.options.keys = request.keys;
  report_request.children = false;
  report_request.callchain_none = true;
  report_request.symfs = request.symfs;
  report_request.kallsyms = request.kallsyms;
  report_request.vmlinux = request.vmlinux;
  report_request.demangle = request.demangle;
  report_request.quiet = true;
  // Only -v has notes, and diff does not ask for them; warnings (a damaged file) go on.
  Diagnostics warnings([&diagnostics, &path](const Diagnostics::Message& message) {
    if (message.kind == Diagnostics::Kind::warning) diagnostics.warningf("{}: {}", path, message.text);
  });
  auto report = run_report(report_request, warnings);
  if (!report) return tl::unexpected(report.error());
  std::vector<FileEvent> events;
  const auto& attrs = (*report)->session.reader().attrs().events();
  for (size_t index = 0; index < (*report)->events.size(); ++index) {
    EventReport& event = (*report)->events[index];
    FileEvent file_event;
    file_event.name = event.name;
    if (index < attrs.size()) {
      file_event.type = attrs[index].attr.type;
      file_event.config = attrs[index].attr.config;
    }
    file_event.total = event.histogram.total_period();
    for (const HistEntry& entry : event.histogram.entries()) {
      if (entry.self_period == 0) continue;
      std::vector<std::string> keys;
      for (SortKey key : request.keys) keys.push_back(hist_key_text((*report)->tables, entry, key));
      file_event.periods[keys] += entry.self_period;
    }
    events.push_back(std::move(file_event));
  }
  return events;
}

double percent_of(uint64_t period, uint64_t total) {
  return total ? static_cast<double>(period) * 100.0 / static_cast<double>(total) : 0.0;
}

}  // namespace

std::optional<double> diff_value(const DiffRow& row, size_t column, const DiffRequest& request) {
  const DiffCell& base = row.cells[0];
  const DiffCell& pair = row.cells[column];
  if (!pair.present) return std::nullopt;
  switch (request.compute) {
    case DiffCompute::delta:
    case DiffCompute::delta_abs:
      return pair.percent - (base.present ? base.percent : 0.0);
    case DiffCompute::ratio:
      if (!base.present) return std::nullopt;
      return static_cast<double>(pair.period) / static_cast<double>(base.period ? base.period : 1);
    case DiffCompute::wdiff:
      if (!base.present) return std::nullopt;
      return static_cast<double>(static_cast<int64_t>(pair.period) * request.weight_new -
                                 static_cast<int64_t>(base.period) * request.weight_baseline);
  }
  return std::nullopt;
}

Result<std::vector<EventDiff>> compute_diff(const DiffRequest& request, Diagnostics& diagnostics) {
  std::vector<std::vector<FileEvent>> files;
  for (const std::string& path : request.files) {
    auto events = read_file(path, request, diagnostics);
    if (!events) return tl::unexpected(events.error());
    files.push_back(std::move(*events));
  }
  std::vector<EventDiff> diffs;
  // The baseline's events, each compared with the same event of the other files.
  for (const FileEvent& base : files[0]) {
    std::vector<const FileEvent*> columns;
    for (const auto& file : files) {
      auto it = std::find_if(file.begin(), file.end(), [&](const FileEvent& e) {
        return e.type == base.type && e.config == base.config;
      });
      columns.push_back(it == file.end() ? nullptr : &*it);
    }
    std::map<std::vector<std::string>, DiffRow> rows;
    for (size_t f = 0; f < columns.size(); ++f) {
      if (columns[f] == nullptr) continue;
      for (const auto& [keys, period] : columns[f]->periods) {
        DiffRow& row = rows[keys];
        if (row.cells.empty()) {
          row.keys = keys;
          row.cells.resize(columns.size());
        }
        row.cells[f] = {true, period, percent_of(period, columns[f]->total)};
      }
    }
    EventDiff diff;
    diff.event = base.name;
    for (auto& [keys, row] : rows) diff.rows.push_back(std::move(row));
    // perf's order: computed values first (largest, or largest magnitude for delta-abs), then
    // the N/A ones (no baseline), then the entries the first compared file lacks.
    auto rank = [&](const DiffRow& row) {
      if (!row.cells[1 < row.cells.size() ? 1 : 0].present) return 2;
      return diff_value(row, 1, request) ? 0 : 1;
    };
    auto sort_value = [&](const DiffRow& row) {
      double v = diff_value(row, 1, request).value_or(0);
      return request.compute == DiffCompute::delta_abs ? std::fabs(v) : v;
    };
    std::stable_sort(diff.rows.begin(), diff.rows.end(), [&](const DiffRow& a, const DiffRow& b) {
      int ra = rank(a), rb = rank(b);
      if (ra != rb) return ra < rb;
      if (ra == 0) {
        double va = sort_value(a), vb = sort_value(b);
        if (va != vb) return va > vb;
      }
      size_t by = ra == 1 ? 1 : 0;  // N/A rows: by their new share; the others by the baseline's
      if (a.cells[by].percent != b.cells[by].percent) return a.cells[by].percent > b.cells[by].percent;
      return a.keys < b.keys;
    });
    diffs.push_back(std::move(diff));
  }
  return diffs;
}

Result<void> parse_compute(const std::string& spec, DiffRequest& request) {
  if (spec == "delta")
    request.compute = DiffCompute::delta;
  else if (spec == "delta-abs")
    request.compute = DiffCompute::delta_abs;
  else if (spec == "ratio")
    request.compute = DiffCompute::ratio;
  else if (spec.starts_with("wdiff")) {
    auto weights =
        spec.size() > 6 && spec[5] == ':' ? split(spec.substr(6), ',') : std::vector<std::string>{};
    auto w1 = weights.size() == 2 ? parse_uint(weights[0]) : std::nullopt;
    auto w2 = weights.size() == 2 ? parse_uint(weights[1]) : std::nullopt;
    if (!w1 || !w2) return fail("wrong weight data, use 'wdiff:w1,w2'");
    request.compute = DiffCompute::wdiff;
    request.weight_baseline = static_cast<int64_t>(*w1);
    request.weight_new = static_cast<int64_t>(*w2);
  } else {
    return failf("unknown --compute '{}': use delta, delta-abs, ratio or wdiff:w1,w2", spec);
  }
  return {};
}

}  // namespace sonde::analysis
