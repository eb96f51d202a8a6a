#pragma once
// What perf annotate counts: each sample's own address (not its callers) in the symbol holding
// it, per event, as a histogram by offset from the symbol's start; the symbols of each event in
// perf's order (period, then DSO name, then address).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/annotate/perf_annotation.hpp"
#include "session/session.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::analysis {

struct AnnotatedSymbol {
  const session::Dso* dso = nullptr;
  const symbols::Symbol* symbol = nullptr;  // start and size in the DSO's symbol space
  AddressHits total;
  std::map<uint64_t, AddressHits> hits;  // by offset from symbol->start
};

struct AnnotatedEvent {
  std::string name;   // as perf names the event ("cpu-clock:ppp")
  AddressHits total;  // every sample of the event, resolved or not (the global percent types)
  std::vector<AnnotatedSymbol> symbols;  // perf's order
};

class AnnotateSamples : public session::SessionVisitor {
 public:
  AnnotateSamples(session::Session& session, symbols::Symbolizer& symbolizer)
      : session_(session), symbolizer_(symbolizer) {}
  void on_sample(const session::SampleEvent& sample) override;
  // The events in the file's order, each with its symbols sorted.
  std::vector<AnnotatedEvent> finish();

 private:
  session::Session& session_;
  symbols::Symbolizer& symbolizer_;
  std::vector<AnnotatedEvent> events_;
  std::vector<std::map<const symbols::Symbol*, AnnotatedSymbol>> symbols_;  // per event
};

}  // namespace sonde::analysis
