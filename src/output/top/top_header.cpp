#include "output/top/top_header.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

namespace sonde::output {

std::string top_header_line(const TopHeaderFacts& facts) {
  std::string line =
      fmt::format("   PerfTop:{:8.0f} irqs/sec  kernel:{:4.1f}%  exact: {:4.1f}% lost: {}/{} drop: {}/{} [",
                  facts.samples_per_second, facts.kernel_percent, facts.exact_percent, facts.lost,
                  facts.lost_total, 0, 0);
  if (facts.one_event) line += fmt::format("{}{} ", facts.rate, facts.hertz ? "Hz" : "");
  line += facts.event;
  line += "], ";
  line += facts.target;
  return line;
}

std::string top_screen(const TopHeaderFacts& facts, analysis::Histogram& histogram,
                       analysis::ReportTables& tables, ReportLayout layout, size_t entries, size_t width) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  if (out == nullptr) return top_header_line(facts) + "\n";
  std::fputs(top_header_line(facts).c_str(), out);
  std::fputc('\n', out);
  // perf's "%-*.*s" of its dotted line: the terminal's width less one, or 79 dashes.
  size_t rule = width > 1 ? width - 1 : 79;
  std::fputs(std::string(rule, '-').c_str(), out);
  std::fputs("\n\n", out);
  layout.max_entries = entries;
  layout.max_columns = width > 1 ? width - 1 : 0;
  print_histogram(out, histogram, tables, layout, histogram.total_period(), false);
  std::fclose(out);
  std::string screen(buffer, size);
  std::free(buffer);
  return screen;
}

}  // namespace sonde::output
