#pragma once
// perf diff: two or more profiles' histograms (by dso,sym unless -s says otherwise), their
// entries paired by the text of their keys, and the baseline compared with each other file by
// perf's computations: delta and delta-abs of the percentages, the ratio of the periods, or
// the weighted difference w2*new - w1*old.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/report/sort_keys.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::analysis {

enum class DiffCompute { delta, delta_abs, ratio, wdiff };

struct DiffRequest {
  std::vector<std::string> files;  // the baseline first
  DiffCompute compute = DiffCompute::delta_abs;
  int64_t weight_baseline = 1, weight_new = 1;  // wdiff:w1,w2
  std::vector<SortKey> keys = {SortKey::dso, SortKey::sym};
  std::string symfs, kallsyms, vmlinux;
  bool demangle = true;
};

struct DiffCell {
  bool present = false;
  uint64_t period = 0;
  double percent = 0;  // of the file's total period for the event
};

struct DiffRow {
  std::vector<std::string> keys;  // key texts, as perf prints them
  std::vector<DiffCell> cells;    // one per file
};

struct EventDiff {
  std::string event;
  std::vector<DiffRow> rows;  // in perf's order for the compute: the first pair column decides
};

// The computed value of `row` for file `column` (>= 1), or nullopt when perf leaves the cell
// blank (no entry in that file) or prints N/A (no baseline for a ratio or weighted diff).
std::optional<double> diff_value(const DiffRow& row, size_t column, const DiffRequest& request);

// Warnings about the files (damage, a cut end) go to `diagnostics`, each led by its file's name.
Result<std::vector<EventDiff>> compute_diff(const DiffRequest& request, Diagnostics& diagnostics);

// "wdiff:2,3" and friends for -c/--compute.
Result<void> parse_compute(const std::string& spec, DiffRequest& request);

}  // namespace sonde::analysis
