#pragma once
// sonde archive: the files a recording's samples need, packed so that it reports on another
// machine. Every DSO the samples hit (buildid-list -H) goes in at its own path — the file itself
// when its build-id is the recorded one, else its build-id cache copy — so that unpacking the
// tarball into DIR and `sonde report --symfs DIR` (or perf's) resolves them; the recording's
// kallsyms goes in as DIR/kallsyms when this is the kernel it was recorded on (for --kallsyms).
// Compressed with bzip2 by tar, as perf archive's.
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde::pipeline {

struct ArchiveSummary {
  std::string output;
  size_t files = 0;                  // DSOs packed
  bool kallsyms = false;             // the kernel's symbols packed
  std::vector<std::string> missing;  // "<path> (build-id <id>)" found nowhere with that build-id
};

// `output` empty: INPUT.tar.bz2.
Result<ArchiveSummary> write_archive(const std::string& input, const std::string& output);

}  // namespace sonde::pipeline
