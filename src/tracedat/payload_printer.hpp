#pragma once
// A faster path to an event's payload for the print formats most events have: literal text,
// integer conversions (%d %u %x %o with flags, width, precision and h/l/ll) of fields and of
// casts of fields, and %s of __get_str(). It prints exactly what libtraceevent's pretty_print
// prints for them, without its printf per argument. Events with a plugin handler, pointers
// (%p), symbolic or flag tables, arrays or anything else are not compiled; their payloads go
// through tep_print_event as before.
#include <memory>
#include <string>
#include <vector>

struct tep_event;
struct tep_record;
struct tep_print_arg;
struct tep_format_field;

namespace sonde::tracedat {

class PayloadPrinter {
 public:
  // nullptr when the event's print format needs more than this printer does.
  static std::unique_ptr<PayloadPrinter> compile(tep_event* event);
  // Appends the payload; false (with nothing appended) when this record needs the full path,
  // e.g. a field lies outside the record.
  bool print(const tep_record& record, std::string& out) const;

  struct Number {
    bool left = false, zero = false, alternate = false;
    int width = 0, precision = -1;
    int length = 0;  // h/l count: -2 char, -1 short, 0 int, 1 long, 2 long long
    char conversion = 'd';
  };
  struct Piece {
    enum class Kind { text, number, string } kind = Kind::text;
    std::string text;
    Number number;
    const tep_print_arg* arg = nullptr;
    const tep_format_field* string_field = nullptr;
  };

 private:
  std::vector<Piece> pieces_;
};

}  // namespace sonde::tracedat
