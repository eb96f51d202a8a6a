#pragma once
// USDT markers through perf's build-id cache: `buildid-cache --add BIN` writes BIN's markers
// into its entry's `probes` file (perf's "%sdt_P:N=N" and "p:..." lines), `list sdt` lists what
// the cache holds, and `record -e sdt_P:N` defines the cached markers it names for the run and
// removes them after it, also when the run ends by a signal.
#include <memory>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::pipeline {

// Writes `binary`'s SDT markers into its cache entry (after symbols::buildid_cache_add made it).
Result<void> cache_sdt_markers(const std::string& cache_dir, const std::string& binary);

struct CachedSdtEvent {
  std::string group, event;  // "sdt_python", "function__entry"
  std::string definition;    // the uprobe_events line
};
// Every SDT event of the cache, by name (one entry per definition line).
std::vector<CachedSdtEvent> cached_sdt_events(const std::string& cache_dir);

// Cached SDT events a run names, defined for it; their events go when this does.
class TemporarySdtProbes {
 public:
  TemporarySdtProbes() = default;
  ~TemporarySdtProbes();
  TemporarySdtProbes(const TemporarySdtProbes&) = delete;
  TemporarySdtProbes& operator=(const TemporarySdtProbes&) = delete;

  // Defines each cached SDT event matching one of `patterns` ("sdt_P:N", globs) that tracefs
  // does not have yet. A pattern naming no cached marker is left for the event parser to refuse.
  // SDT events a killed sonde run left defined are taken over (and removed at the end), with a
  // warning each; a run that names no SDT event still takes them over.
  Result<void> define(const std::vector<std::string>& patterns, const std::string& cache_dir,
                      Diagnostics& diagnostics);

 private:
  // Writes the events this run defined to its lease (/run/sonde/sdt-probes.PID).
  void write_lease();

  std::vector<std::pair<std::string, std::string>> defined_;  // group, event
  std::string lease_;
};

}  // namespace sonde::pipeline
