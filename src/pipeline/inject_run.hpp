#pragma once
// sonde inject: a recording copied from a file or a pipe to a file or a pipe, perf inject's way.
// -b puts a HEADER_BUILD_ID record before the first sample of each DSO samples land in (the
// records in time order, a round end every 10,000); --buildid-all puts one before each MMAP of a
// DSO not yet named (the records in file order). The attrs and header features are carried over
// (the build-ids injected added to the BUILD_ID feature); compressed input comes out
// uncompressed. -j reads each jitdump file a process mapped (jit-PID.dump), writes an ELF file
// per function beside it (jitted-PID-INDEX.so) and puts an MMAP2 record of it where the dump's
// mapping was, with the load's time; the dump's mapping and the process's later anonymous maps
// are left out, and the records go in time order, with no round ends, as perf's.
#include <string>

#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::pipeline {

struct InjectOptions {
  std::string input = "-";   // -i: "-" reads a pipe-mode stream from standard input
  std::string output = "-";  // -o: "-" writes one to standard output
  bool build_ids = false;    // -b
  bool buildid_all = false;  // --buildid-all
  bool jit = false;          // -j
};

struct InjectStats {
  size_t records = 0;           // written, the injected ones included
  size_t build_id_records = 0;  // injected
  size_t jitted_functions = 0;  // -j: ELF files written
};

Result<InjectStats> run_inject(const InjectOptions& options, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
