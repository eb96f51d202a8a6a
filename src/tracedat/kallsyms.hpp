#pragma once
// A trace.dat's kallsyms as libtraceevent's function map: the lines tep_parse_kallsyms takes
// (same lines skipped, same stop on a malformed line), in the order its map has them, looked
// up as its find_func does. Installed into a tep_handle as its function resolver, it replaces
// registering every function with libtraceevent (a malloc and two strdups each, then a sort),
// which was the largest fixed cost of reading a trace.dat.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct tep_handle;

namespace sonde::tracedat {

class KernelFunctions {
 public:
  struct Function {
    unsigned long long address = 0;
    uint32_t name_offset = 0, name_length = 0;      // in the kallsyms text
    uint32_t module_offset = 0, module_length = 0;  // length 0: no module
  };

  // `kallsyms` must outlive this object: names are views into it.
  explicit KernelFunctions(std::string_view kallsyms);

  // The function holding `address`, as libtraceevent's find_func finds it; nullptr if none.
  const Function* find(unsigned long long address) const;
  // The address of the first function of this name in map order, 0 if none (libtraceevent's
  // value for a print-format atom naming a symbol).
  unsigned long long address_of(std::string_view name) const;
  std::string_view name(const Function& function) const {
    return text_.substr(function.name_offset, function.name_length);
  }
  // A NUL-terminated copy of a piece of the text, kept for the object's life (libtraceevent
  // keeps the pointers its resolver returns).
  const char* terminated(uint32_t offset, uint32_t length) const;
  size_t size() const { return functions_.size(); }

  // Makes `tep` look functions up here (tep_set_function_resolver); this object must outlive
  // the handle's use.
  void install(tep_handle* tep) const;

 private:
  const Function* search(unsigned long long address) const;

  std::string_view text_;
  std::vector<Function> functions_;
  mutable std::unordered_map<uint32_t, std::string> terminated_;  // by offset in text_
  struct CacheSlot {
    unsigned long long address = 0;
    const Function* function = nullptr;
    bool filled = false;
  };
  mutable std::array<CacheSlot, 1024> cache_{};
};

}  // namespace sonde::tracedat
