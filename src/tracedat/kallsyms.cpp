#include "tracedat/kallsyms.hpp"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "base/strings.hpp"

namespace sonde::tracedat {

namespace {
// isspace() in the C locale, without its locale lookup.
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
template <typename Visit>
void for_each_function(std::string_view kallsyms, Visit&& visit) {
  std::string_view function, module;
  size_t next = 0;
  while (next < kallsyms.size()) {
    size_t end = kallsyms.find('\n', next);
    if (end == std::string_view::npos) end = kallsyms.size();
    std::string_view line = kallsyms.substr(next, end - next);
    next = end + 1;
    if (line.empty()) continue;  // strtok skips empty lines

    // "%16llx %c %n%*s%n%*1[\t][%n%*s%n"
    size_t i = 0;
    while (i < line.size() && is_space(line[i])) ++i;
    if (i + 1 < line.size() && line[i] == '0' && (line[i + 1] == 'x' || line[i + 1] == 'X') &&
        i + 2 < line.size() && hex_digit_value(line[i + 2]) >= 0)
      i += 2;
    unsigned long long address = 0;
    size_t digits = 0;
    while (i < line.size() && digits < 16 && hex_digit_value(line[i]) >= 0) {
      address = address * 16 + static_cast<unsigned>(hex_digit_value(line[i++]));
      ++digits;
    }
    if (digits == 0) return;
    while (i < line.size() && is_space(line[i])) ++i;
    if (i >= line.size()) return;
    char type = line[i++];
    while (i < line.size() && is_space(line[i])) ++i;
    size_t function_start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i == function_start) return;
    function = line.substr(function_start, i - function_start);
    bool has_module = false;
    if (i + 1 < line.size() && line[i] == '\t' && line[i + 1] == '[') {
      size_t module_start = i + 2, j = module_start;
      while (j < line.size() && !is_space(line[j])) ++j;
      if (j > module_start) {
        module = line.substr(module_start, j - module_start - 1);  // without the ']'
        has_module = true;
      }
    }
    // As libtraceevent: no arm '$' mapping symbols, no absolute (per-CPU offset) symbols.
    if (function[0] == '$' || type == 'A' || type == 'a') continue;
    visit(function, address, has_module ? module : std::string_view());
  }
}

}  // namespace

KernelFunctions::KernelFunctions(std::string_view kallsyms) : text_(kallsyms) {
  // libtraceevent lists functions newest first and sorts them by address with glibc's (stable)
  // merge sort; the same order here makes equal addresses resolve to the same name.
  functions_.reserve(kallsyms.size() / 40);
  for_each_function(kallsyms,
                    [&](std::string_view name, unsigned long long address, std::string_view module) {
                      Function function;
                      function.address = address;
                      function.name_offset = static_cast<uint32_t>(name.data() - kallsyms.data());
                      function.name_length = static_cast<uint32_t>(name.size());
                      if (!module.empty()) {
                        function.module_offset = static_cast<uint32_t>(module.data() - kallsyms.data());
                        function.module_length = static_cast<uint32_t>(module.size());
                      }
                      functions_.push_back(function);
                    });
  std::reverse(functions_.begin(), functions_.end());
  std::stable_sort(functions_.begin(), functions_.end(),
                   [](const Function& a, const Function& b) { return a.address < b.address; });
}

const KernelFunctions::Function* KernelFunctions::find(unsigned long long address) const {
  // A report asks for the same call sites over and over, often twice in a row (name, start).
  CacheSlot& slot = cache_[(address ^ (address >> 12)) % cache_.size()];
  if (slot.filled && slot.address == address) return slot.function;
  slot = {address, search(address), true};
  return slot.function;
}

const KernelFunctions::Function* KernelFunctions::search(unsigned long long address) const {
  // glibc's bsearch with libtraceevent's comparison: an entry matches its own address and
  // everything up to the next entry's; the last entry only its own (the end marker is 0).
  size_t low = 0, high = functions_.size();
  while (low < high) {
    size_t index = (low + high) / 2;
    const Function& entry = functions_[index];
    unsigned long long next = index + 1 < functions_.size() ? functions_[index + 1].address : 0;
    if (address == entry.address || (address > entry.address && address < next)) return &entry;
    if (address < entry.address)
      high = index;
    else
      low = index + 1;
  }
  return nullptr;
}

unsigned long long KernelFunctions::address_of(std::string_view name) const {
  for (const Function& function : functions_)
    if (name == this->name(function)) return function.address;
  return 0;
}

const char* KernelFunctions::terminated(uint32_t offset, uint32_t length) const {
  auto [entry, added] = terminated_.try_emplace(offset);
  if (added) entry->second.assign(text_.substr(offset, length));
  return entry->second.c_str();
}

namespace {
// libtraceevent's resolver hook: NUL-terminated names, made when first asked for.
char* resolve(void* priv, unsigned long long* address, char** module) {
  const auto* functions = static_cast<const KernelFunctions*>(priv);
  const KernelFunctions::Function* found = functions->find(*address);
  if (!found) return nullptr;
  *address = found->address;
  *module = found->module_length
                ? const_cast<char*>(functions->terminated(found->module_offset, found->module_length))
                : nullptr;
  return const_cast<char*>(functions->terminated(found->name_offset, found->name_length));
}
}  // namespace

void KernelFunctions::install(tep_handle* tep) const {
  tep_set_function_resolver(tep, resolve, const_cast<KernelFunctions*>(this));
}

}  // namespace sonde::tracedat
