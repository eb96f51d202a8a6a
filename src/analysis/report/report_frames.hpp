#pragma once
// The report's view of sampled addresses. Every distinct (DSO, address, privilege level) met in
// a sample or callchain becomes one Location, interned on the hot path without touching
// symbols; after the file is read, each Location is resolved once to a Function: perf's
// callchain key (a symbol of a DSO, or the bare address when nothing names it).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/report/hist_index.hpp"
#include "session/machine.hpp"

namespace sonde::analysis {

// Where symbol names and source lines come from (the symbols layer, or nothing).
class FrameResolver {
 public:
  struct Symbol {
    uint64_t start = 0;  // in the DSO's symbol space: ordering and identity only
    std::string name;
  };
  virtual ~FrameResolver() = default;
  virtual std::optional<Symbol> symbol(const session::Dso& dso, uint64_t address) = 0;
  // "file.c:12"; "" when unknown.
  virtual std::string srcline(const session::Dso& dso, uint64_t address) = 0;
  // perf's names for a frame of a DWARF unwind: the functions inlined at the address, innermost
  // first, then the one holding them (not `inlined` when it is the ELF symbol); empty for none.
  struct UnwoundName {
    std::string name;
    std::string srcline;
    bool inlined = true;
  };
  virtual std::vector<UnwoundName> unwound_frames(const session::Dso&, uint64_t) { return {}; }
  // `address` in the DSO's symbol space (Symbol::start's), for perf's "sym+offset" srclines.
  virtual uint64_t symbol_address(const session::Dso&, uint64_t address) { return address; }
  // Kernel symbols will be asked for: loading them may start now, alongside the caller's work.
  virtual void prefetch_kernel_symbols() {}
  // What could not be resolved, one note per DSO (for -v).
};

// Names nothing: every address stays a hex number, as perf shows a DSO without symbols.
class NoSymbols : public FrameResolver {
 public:
  std::optional<Symbol> symbol(const session::Dso&, uint64_t) override { return std::nullopt; }
  std::string srcline(const session::Dso&, uint64_t) override { return ""; }
};

inline constexpr uint32_t kNoId = UINT32_MAX;

struct FrameLocation {
  const session::Dso* dso = nullptr;  // nullptr: no map covered the address ([unknown])
  uint64_t address = 0;               // DSO-relative (perf's map_ip), the ip without a map
  uint64_t ip = 0;                    // as sampled
  char level = '.';                   // perf's [.] [k] [g] [u] [H]
  uint32_t function = kNoId;          // set by LocationTable::resolve
  uint32_t srcline = kNoId;           // set by LocationTable::resolve_srclines
  bool unwound = false;               // a frame of a DWARF unwind: perf shows its inline chain
};

struct Function {
  const session::Dso* dso = nullptr;
  bool resolved = false;
  uint64_t start = 0;    // symbol start; the address when unresolved
  uint64_t ip = 0;       // raw ip of the first location (perf prints it for unresolved entries)
  std::string name;      // symbol name; empty when unresolved
  uint32_t rank = 0;     // perf's child order in a callchain: by DSO, then address, descending
  bool inlined = false;  // an inline frame of an unwound address: perf adds " (inlined)"

  // A resolved function's name as perf shows it.
  std::string shown_name() const { return inlined ? name + " (inlined)" : name; }
};

class LocationTable {
 public:
  // `unwound`: the frame came from a DWARF unwind (resolve() then expands its inline chain).
  uint32_t intern(const session::Location& location, bool unwound = false) {
    uint64_t dso = location.dso ? location.dso->id + 1 : 0;
    uint64_t level = static_cast<uint64_t>(level_of(location));
    bool inserted;
    uint32_t id = index_.intern(
        {dso << 9 | uint64_t(unwound) << 8 | level, location.dso ? location.dso_address : location.ip},
        inserted);
    if (inserted)
      locations_.push_back({location.dso, location.dso ? location.dso_address : location.ip, location.ip,
                            static_cast<char>(level), kNoId, kNoId, unwound});
    return id;
  }

  // Resolves every location not resolved yet to its Function; an unwound location with an
  // inline chain gets one location per chain frame (expansion()).
  void resolve(FrameResolver& resolver);
  // The locations an unwound location stands for, innermost first; nullptr when just itself.
  const std::vector<uint32_t>* expansion(uint32_t id) const {
    auto it = expansions_.find(id);
    return it == expansions_.end() ? nullptr : &it->second;
  }
  bool has_expansions() const { return !expansions_.empty(); }
  // Source lines for every location (only -s srcline needs them).
  void resolve_srclines(FrameResolver& resolver);

  const FrameLocation& location(uint32_t id) const { return locations_[id]; }
  const Function& function(uint32_t id) const { return functions_[id]; }
  const std::string& srcline(uint32_t id) const { return srclines_[id]; }
  size_t location_count() const { return locations_.size(); }
  size_t function_count() const { return functions_.size(); }
  // "??:0"-style entries that had no source line: -v lists them.
  std::vector<std::string> unresolved_descriptions() const;

 private:
  static char level_of(const session::Location& location);
  void expand(uint32_t id, FrameResolver& resolver);

  KeyIndex<2> index_;
  std::vector<FrameLocation> locations_;
  size_t resolved_ = 0;
  KeyIndex<3> function_index_;
  std::vector<Function> functions_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> expansions_;
  std::unordered_map<uint32_t, std::string> inline_srclines_;  // per expanded location
  std::unordered_map<std::string, uint32_t> inline_name_ids_;
  std::vector<std::string> srclines_;
  KeyIndex<1> srcline_index_;
};

}  // namespace sonde::analysis
