#pragma once
// perf annotate --stdio's text for one symbol: the " Percent |" header naming the DSO and the
// event, its dashes, each instruction with its share (or -n samples, --show-total-period
// period) and objdump's address, source text with perf's running line number; with -l a sorted
// summary of the hot source lines first and each hot instruction's line after it.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "analysis/annotate/perf_annotation.hpp"

namespace sonde::output {

enum class AnnotateColumn { percent, samples, period };
enum class PercentType { local_period, local_hits, global_period, global_hits };

struct AnnotateLayout {
  AnnotateColumn column = AnnotateColumn::percent;
  PercentType percent_type = PercentType::local_period;
  bool print_line = false;  // -l
};

// "local period" as perf's header names a percent type.
const char* percent_type_name(PercentType type);

class AnnotatePrinter {
 public:
  AnnotatePrinter(std::FILE* out, AnnotateLayout layout) : out_(out), layout_(layout) {}
  // `dso_name` as the header shows it (perf's basename, or the path with -P), `summary_name`
  // the -l summary's ("Sorted summary for file ..."); `event_total` the event's hits (global
  // percents); `srcline` names an instruction's source line for -l ("prog.c:14", "" when none).
  void print(const analysis::PerfAnnotation& annotation, const std::string& dso_name,
             const std::string& summary_name, const std::string& event_name,
             const analysis::AddressHits& event_total,
             const std::function<std::string(uint64_t address)>& srcline);

 private:
  double percent(const analysis::AddressHits& hits, const analysis::PerfAnnotation& annotation,
                 const analysis::AddressHits& event_total) const;

  std::FILE* out_;
  AnnotateLayout layout_;
  std::string previous_srcline_;  // perf's static: a repeated line is not named again, across symbols
};

}  // namespace sonde::output
