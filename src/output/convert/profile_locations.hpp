#pragma once
// What the profile converters (pprof, speedscope) share: a sample's callchain as dense location
// ids, leaf first, each (address space, address) placed in its map once however many samples
// repeat it; and a location's frames named as report names them, with their source lines.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/report/hist_index.hpp"
#include "output/script/script_symbols.hpp"
#include "session/session.hpp"

namespace sonde::output {

// Whether an event's period counts nanoseconds: perf's clock events and off-CPU time.
bool counts_nanoseconds(const perfdata::EventAttr& event, std::string_view name);

class ProfileLocations {
 public:
  struct Mapping {
    const session::Dso* dso;
    uint64_t start, end, pgoff;
  };
  struct Location {
    uint32_t mapping;  // index + 1 in mappings(), 0 for none
    uint64_t ip;
    const session::Dso* dso;
    uint64_t dso_address;
  };
  struct Frame {
    std::string name;
    std::string file;  // "" when unknown
    int64_t line = 0;  // 0 when unknown
  };

  explicit ProfileLocations(session::Session& session) : session_(session) {}

  // The sample's location ids, leaf first, appended to `ids`: the session's placed callchain
  // when it has one (a DWARF unwind), else the raw PERF_SAMPLE_CALLCHAIN (the session run with
  // set_locate_callchains(false)), else the sampled ip.
  void append_stack(const session::SampleEvent& sample, std::vector<uint32_t>& ids);

  const std::vector<Mapping>& mappings() const { return mappings_; }
  const std::vector<Location>& locations() const { return locations_; }
  // The functions at a location, innermost first: DWARF's inlined ones, then the one holding
  // them (named as its ELF symbol, as report names it, unless DWARF names it otherwise); empty
  // when no symbol covers the address.
  std::vector<Frame> frames(const Location& location, ScriptSymbols& symbols) const;
  // The same, with an unresolved location named by its address and file ("[unknown] 0x... (dso)"),
  // for the formats that need a name for every frame (speedscope, Chrome).
  std::vector<Frame> named_frames(const Location& location, ScriptSymbols& symbols) const;

 private:
  uint32_t location_of(const session::Location& loc);

  session::Session& session_;
  analysis::KeyIndex<4> mapping_ids_;  // dso, start, end, pgoff
  std::vector<Mapping> mappings_;
  analysis::KeyIndex<2> location_ids_;  // mapping, ip
  std::vector<Location> locations_;
  analysis::KeyIndex<4> raw_ids_;  // address space, its generation, ip, cpumode
  std::vector<uint32_t> raw_locations_;
};

}  // namespace sonde::output
