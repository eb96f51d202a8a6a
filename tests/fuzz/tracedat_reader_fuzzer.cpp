// libFuzzer target for the trace.dat reader (src/tracedat/): one input is the bytes of a
// trace.dat file (version 6 or 7, compressed or not). Each run opens it as
// `sonde ftrace report -i FILE` does (a memfd, by path) and writes trace-cmd report's text of
// every record, then the --stat view, to /dev/null: the header, options, formats through
// libtraceevent, kallsyms and printk formats, saved cmdlines, the CPU data table, each page
// header, the records merged across CPUs in time order, and the payload printer on each.
// A damaged file may fail to open or end with an error naming the damage; it must never crash.
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz_input.hpp"
#include "tracedat/reader.hpp"
#include "tracedat/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::FILE* null_output = std::fopen("/dev/null", "w");
  std::string path = sonde::fuzz::as_file(data, size, "tracedat-fuzz");
  if (path.empty()) return 0;
  if (auto reader = sonde::tracedat::TraceDatReader::open(path)) {
    sonde::tracedat::ReportOptions options;
    (void)sonde::tracedat::write_report(**reader, options, null_output);
    options.stat = true;
    (void)sonde::tracedat::write_report(**reader, options, null_output);
  }
  return 0;
}
