#pragma once
// --inline for sonde collapse: the inline chain of an address read from the DSO's DWARF with
// elfutils, named as `addr2line -i -f -s -C` names it (stackcollapse-perf.pl runs that
// command per address).
#include <memory>
#include <string>
#include <unordered_map>

#include "analysis/stacks/stack_collapse.hpp"

namespace sonde::analysis {

class DwarfInlineExpander : public InlineExpander {
 public:
  DwarfInlineExpander();
  ~DwarfInlineExpander() override;
  std::string expand(std::string_view ip_text, std::string_view raw_symbol, std::string_view dso,
                     bool with_context) override;

 private:
  struct Module;
  Module* module(std::string_view dso);
  std::unordered_map<std::string, std::unique_ptr<Module>> modules_;
};

}  // namespace sonde::analysis
