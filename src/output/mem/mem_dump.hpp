#pragma once
// perf mem report -D's text: a header naming the columns, then one line per sample — pid, tid,
// ip, data address, (physical address, data page size,) weight, data source, dso:symbol. perf
// 6.1 pads only the first line (and prints its data address after a stray "0x016"): its padded
// format switches the global field separator on, which turns every later line compact. So does
// this printer.
#include <cstdint>
#include <string>
#include <string_view>

namespace sonde::output {

struct MemDumpOptions {
  bool phys_data = false;       // -p
  bool data_page_size = false;  // --data-page-size
  std::string separator;        // -x; empty: perf's default (padded first line, then " ")
};

struct MemDumpRow {
  int32_t pid = 0, tid = 0;
  uint64_t ip = 0, addr = 0, phys_addr = 0, data_page_size = 0, weight = 0, data_src = 0;
  std::string_view dso = "???", symbol = "???";
};

class MemDumpPrinter {
 public:
  explicit MemDumpPrinter(MemDumpOptions options) : options_(std::move(options)) {}
  std::string header() const;
  void append(const MemDumpRow& row, std::string& out);

 private:
  MemDumpOptions options_;
  bool padded_ = true;  // the next line is perf's first, padded one (without -x)
};

}  // namespace sonde::output
