#include "output/mem/mem_dump.hpp"

#include <fmt/format.h>

#include "base/strings.hpp"

namespace sonde::output {

std::string MemDumpPrinter::header() const {
  std::string text = "# PID, TID, IP, ADDR, ";
  if (options_.phys_data) text += "PHYS ADDR, ";
  if (options_.data_page_size) text += "DATA PAGE SIZE, ";
  text += "LOCAL WEIGHT, DSRC, SYMBOL\n";
  return text;
}

void MemDumpPrinter::append(const MemDumpRow& row, std::string& out) {
  auto it = std::back_inserter(out);
  bool padded = padded_ && options_.separator.empty();
  std::string_view sep =
      options_.separator.empty() ? std::string_view(" ") : std::string_view(options_.separator);
  if (padded)
    // perf's "0x016%lx": a literal "0x016" before the unpadded address.
    fmt::format_to(it, "{:5}{}{:5}{}0x{:016x}{}0x016{:x}{}", row.pid, sep, row.tid, sep, row.ip, sep,
                   row.addr, sep);
  else
    fmt::format_to(it, "{}{}{}{}0x{:x}{}0x{:x}{}", row.pid, sep, row.tid, sep, row.ip, sep, row.addr, sep);
  if (options_.phys_data) fmt::format_to(it, "0x{:016x}{}", row.phys_addr, sep);
  if (options_.data_page_size) fmt::format_to(it, "{}{}", page_size_name(row.data_page_size), sep);
  if (padded)
    fmt::format_to(it, "{:5}{}0x{:06x}{}{}:{}\n", row.weight, sep, row.data_src, sep, row.dso, row.symbol);
  else
    fmt::format_to(it, "{}{}0x{:x}{}{}:{}\n", row.weight, sep, row.data_src, sep, row.dso, row.symbol);
  padded_ = false;
}

}  // namespace sonde::output
