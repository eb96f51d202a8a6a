#include "analysis/annotate/annotate_samples.hpp"

#include <linux/perf_event.h>

#include <algorithm>

namespace sonde::analysis {

void AnnotateSamples::on_sample(const session::SampleEvent& sample) {
  if (events_.empty()) {  // a pipe's events arrive ahead of its first sample
    for (const auto& event : session_.reader().attrs().events())
      events_.push_back({session::event_name(event), {}, {}});
    symbols_.resize(events_.size());
  }
  if (sample.event_index >= events_.size()) return;
  const perfdata::Sample& s = sample.sample;
  uint64_t period = s.has(PERF_SAMPLE_PERIOD) ? s.period
                    : sample.event.attr.freq  ? 1
                                              : sample.event.attr.sample_period;
  AnnotatedEvent& event = events_[sample.event_index];
  ++event.total.samples;
  event.total.period += period;
  session::Location location = !sample.callchain.empty() && sample.callchain.front().ip == s.ip
                                   ? sample.callchain.front()
                                   : session_.machine().locate(sample.thread, sample.cpumode, s.ip);
  if (location.dso == nullptr) return;
  const symbols::Symbol* symbol = symbolizer_.find(*location.dso, location.dso_address);
  if (symbol == nullptr) return;
  uint64_t address = symbolizer_.elf_address(*location.dso, location.dso_address);
  if (address < symbol->start) return;
  AnnotatedSymbol& entry = symbols_[sample.event_index][symbol];
  entry.dso = location.dso;
  entry.symbol = symbol;
  ++entry.total.samples;
  entry.total.period += period;
  AddressHits& hits = entry.hits[address - symbol->start];
  ++hits.samples;
  hits.period += period;
}

std::vector<AnnotatedEvent> AnnotateSamples::finish() {
  for (size_t e = 0; e < events_.size(); ++e) {
    std::vector<AnnotatedSymbol>& out = events_[e].symbols;
    for (auto& [symbol, entry] : symbols_[e]) out.push_back(std::move(entry));
    // perf's "dso,symbol" order: period, then the DSO's short name, then the symbol's address.
    std::sort(out.begin(), out.end(), [](const AnnotatedSymbol& a, const AnnotatedSymbol& b) {
      if (a.total.period != b.total.period) return a.total.period > b.total.period;
      if (a.dso->short_name != b.dso->short_name) return a.dso->short_name < b.dso->short_name;
      return a.symbol->start < b.symbol->start;
    });
  }
  symbols_.clear();
  return std::move(events_);
}

}  // namespace sonde::analysis
