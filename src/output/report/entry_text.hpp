#pragma once
// A hist entry's key texts as perf report prints them: each sort key's cell, padded or cut to
// its column, and the natural width perf's column sizing measures.
#include <fmt/format.h>

#include <string>

#include "analysis/report/hist.hpp"
#include "analysis/report/hist_key_text.hpp"

namespace sonde::output {

using analysis::HistEntry;
using analysis::SortKey;

class EntryText {
 public:
  EntryText(const analysis::ReportTables& tables) : tables_(tables) {}

  const analysis::SampleContext& context(const HistEntry& e) const { return tables_.contexts[e.context]; }
  const analysis::FrameLocation& location(const HistEntry& e) const {
    return tables_.locations.location(e.location);
  }
  const analysis::Function& function(const HistEntry& e) const {
    return tables_.locations.function(location(e).function);
  }
  std::string dso(const HistEntry& e) const { return analysis::hist_key_text(tables_, e, SortKey::dso); }
  std::string sym(const HistEntry& e) const { return analysis::hist_key_text(tables_, e, SortKey::sym); }
  std::string parent(const HistEntry& e) const {
    return analysis::hist_key_text(tables_, e, SortKey::parent);
  }
  // The text's own width (what perf's column sizing measures).
  size_t natural_width(SortKey key, const HistEntry& e) const {
    switch (key) {
      case SortKey::comm:
        return tables_.final_comms[e.context].size();
      case SortKey::pid:
        return tables_.final_comms[e.context].size() + 8;
      case SortKey::dso:
        return dso(e).size();
      case SortKey::sym:
        return function(e).resolved ? function(e).name.size() + 4 : 22;
      case SortKey::srcline:
        return tables_.locations.srcline(location(e).srcline).size();
      case SortKey::parent:
        return parent(e).size();
      case SortKey::cpu:
        return 3;
      case SortKey::time:
        return tables_.time_in_ns ? 16 : 12;  // perf's HISTC_TIME widths
      case SortKey::trace:
        return analysis::hist_key_text(tables_, e, SortKey::trace).size();
    }
    return 0;
  }
  std::string cell(SortKey key, const HistEntry& e, size_t width, bool last) const {
    switch (key) {
      case SortKey::comm: {
        std::string comm = tables_.comms[context(e).comm];  // perf's "%-*.*s": cut to the width
        if (comm.size() > width) comm.resize(width);
        return fmt::format("{:<{}}", comm, width);
      }
      case SortKey::pid: {
        std::string comm = tables_.final_comms[e.context];
        size_t w = width > 8 ? width - 8 : 0;
        if (comm.size() > w) comm.resize(w);
        return fmt::format("{:>7}:{:<{}}", context(e).tid, comm, w);
      }
      case SortKey::dso:
        return fmt::format("{:<{}}", dso(e), width);
      case SortKey::sym:
        return last ? sym(e) : fmt::format("{:<{}}", sym(e), width);
      case SortKey::srcline: {
        const std::string& line = tables_.locations.srcline(location(e).srcline);
        return last ? line : fmt::format("{:<{}}", line, width);
      }
      case SortKey::parent:
        return fmt::format("{:<{}}", parent(e), width);
      case SortKey::cpu: {
        // perf's "%*.*d": the precision pads with zeros, -1 shows as -001.
        int cpu = context(e).cpu;
        std::string digits = fmt::format("{:0{}}", cpu < 0 ? -cpu : cpu, width);
        return fmt::format("{:>{}}", (cpu < 0 ? "-" : "") + digits, width);
      }
      case SortKey::time: {
        std::string time = analysis::hist_key_text(tables_, e, SortKey::time);
        if (time.size() > width) time.resize(width);
        return last ? time : fmt::format("{:<{}}", time, width);
      }
      case SortKey::trace: {
        // perf's "%-.*s" cuts the text to the width; a column before the last is then padded.
        std::string trace = analysis::hist_key_text(tables_, e, SortKey::trace);
        if (trace.size() > width) trace.resize(width);
        return last ? trace : fmt::format("{:<{}}", trace, width);
      }
    }
    return "";
  }

 private:
  const analysis::ReportTables& tables_;
};

}  // namespace sonde::output
