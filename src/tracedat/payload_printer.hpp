#pragma once
// A faster path to an event's payload for the print formats most events have: literal text,
// integer conversions (%d %u %x %o with flags, width, precision and h/l/ll/z), %p, %pS/%ps
// and %s, of the arguments payload_values evaluates (fields, casts, operators, ?:, __get_str,
// __print_flags, __print_symbolic), and the output of the plugins trace-cmd loads for the
// common events (sched_switch, sched_wakeup, the kmem call sites). It prints exactly what
// libtraceevent prints for them, without its printf per argument. Anything else (other
// plugins, arrays, %pM/%pI..., helper functions) is not compiled; those payloads go through
// tep_print_event.
#include <memory>
#include <string>
#include <vector>

#include "tracedat/kallsyms.hpp"
#include "tracedat/payload_values.hpp"

struct tep_event;
struct tep_handle;
struct tep_record;
struct tep_format_field;

namespace sonde::tracedat {

class PayloadPrinter {
 public:
  // nullptr when the event's print format needs more than this printer does.
  // `symbol_address`, where given, resolves atoms naming kernel symbols (see PayloadValues).
  static std::unique_ptr<PayloadPrinter> compile(tep_event* event, const SymbolAddress& symbol_address = {});
  // Appends the payload; false (with nothing appended) when this record needs the full path,
  // e.g. a field lies outside the record.
  bool print(const tep_record& record, std::string& out) const;
  // Whether its pieces look up kernel symbols (%pS and the like).
  bool needs_kallsyms() const { return needs_kallsyms_; }
  // Where to look them up; without it, through the tep_handle (tep_find_function).
  void use_functions(const KernelFunctions* functions) { functions_ = functions; }

  struct Number {
    bool left = false, zero = false, alternate = false;
    int width = 0, precision = -1;
    int length = 0;  // h/l count: -2 char, -1 short, 0 int, 1 long, 2 long long
    char conversion = 'd';
  };
  struct Piece {
    enum class Kind {
      text,
      number,
      string,
      pointer,
      function,
      call_site,
      sched_switch,
      sched_wakeup
    } kind = Kind::text;
    std::string text;
    Number number;
    int value = -1;                           // the argument's node in values_
    const tep_format_field* field = nullptr;  // call_site
    bool with_offset = false;                 // function: %pS/%pF
  };

 private:
  // The fields the sched_switch plugin prints (sched_wakeup's in the next_ ones).
  struct SchedFields {
    const tep_format_field *prev_pid = nullptr, *prev_comm = nullptr, *prev_prio = nullptr,
                           *prev_state = nullptr;
    const tep_format_field *next_pid = nullptr, *next_comm = nullptr, *next_prio = nullptr;
    const tep_format_field *success = nullptr, *target_cpu = nullptr;
    // The record size every field set here fits in (INT_MAX when one has no place): checked
    // once per record instead of field by field.
    int extent() const;
  };
  static std::unique_ptr<PayloadPrinter> compile_sched_switch(tep_event* event,
                                                              std::unique_ptr<PayloadPrinter> printer);
  static std::unique_ptr<PayloadPrinter> compile_sched_wakeup(tep_event* event,
                                                              std::unique_ptr<PayloadPrinter> printer);
  bool print_sched(const Piece& piece, const tep_record& record, std::string& out) const;

  // The symbol of an address: "name" or "name+0xoff" (offset as printf's %llx or %x of an
  // int), or false when none holds it.
  enum class Offset { none, long_long, int_value };
  bool append_symbol(unsigned long long address, Offset offset_as, std::string& out) const;

  tep_handle* tep_ = nullptr;
  const KernelFunctions* functions_ = nullptr;
  SchedFields sched_;
  int sched_extent_ = 0;  // sched_.extent(), once compiled
  PayloadValues values_;
  std::vector<Piece> pieces_;
  bool needs_kallsyms_ = false;
};

}  // namespace sonde::tracedat
