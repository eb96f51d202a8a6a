#include "tracedat/kallsyms.hpp"

#include <string>

#include <traceevent/event-parse.h>

namespace sonde::tracedat {

namespace {
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

void register_kallsyms(tep_handle* tep, std::string_view kallsyms) {
  std::string function, module;
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
        i + 2 < line.size() && hex_value(line[i + 2]) >= 0)
      i += 2;
    unsigned long long address = 0;
    size_t digits = 0;
    while (i < line.size() && digits < 16 && hex_value(line[i]) >= 0) {
      address = address * 16 + static_cast<unsigned>(hex_value(line[i++]));
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
    function.assign(line.substr(function_start, i - function_start));
    bool has_module = false;
    if (i + 1 < line.size() && line[i] == '\t' && line[i + 1] == '[') {
      size_t module_start = i + 2, j = module_start;
      while (j < line.size() && !is_space(line[j])) ++j;
      if (j > module_start) {
        module.assign(line.substr(module_start, j - module_start - 1));  // without the ']'
        has_module = true;
      }
    }
    // As libtraceevent: no arm '$' mapping symbols, no absolute (per-CPU offset) symbols.
    if (function[0] == '$' || type == 'A' || type == 'a') continue;
    tep_register_function(tep, function.data(), address, has_module ? module.data() : nullptr);
  }
}

}  // namespace sonde::tracedat
