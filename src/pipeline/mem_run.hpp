#pragma once
// sonde mem report -D: every sample of a memory-sampling recording, in time order, as perf mem
// report -D dumps it (output/mem's text), each ip named by its DSO and symbol.
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "output/mem/mem_dump.hpp"

namespace sonde::pipeline {

struct MemDumpRunOptions {
  std::string input = "perf.data";
  output::MemDumpOptions dump;
  bool hide_unresolved = false;  // -U: only samples whose ip a symbol names
  std::vector<int> cpus;         // -C: only samples taken on these CPUs
};

Result<void> run_mem_dump(const MemDumpRunOptions& options, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
