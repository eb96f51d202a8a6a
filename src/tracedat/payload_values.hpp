#pragma once
// The values of print-format arguments as libtraceevent 1.7 computes them (eval_num_arg and
// print_str_arg), for the argument shapes PayloadPrinter compiles: fields, numeric atoms,
// casts, operators (arithmetic, comparison, logic, ?:), __get_str, char arrays, string atoms,
// __print_flags and __print_symbolic. Arguments are compiled once from libtraceevent's parse
// tree into nodes with their constants decoded, then evaluated per record; evaluation fails
// (false) where a field lies outside the record, so the caller can leave that record to
// libtraceevent.
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct tep_event;
struct tep_format_field;
struct tep_print_arg;
struct tep_record;

namespace sonde::tracedat {

// The address of a kernel symbol by name, 0 when there is none.
using SymbolAddress = std::function<unsigned long long(std::string_view)>;

// "0x%llx".
void append_hex(unsigned long long value, std::string& out);
// A numeric field (1, 2, 4 or 8 bytes) of the record; false if it lies outside it.
bool read_field(const tep_format_field* field, const tep_record& record, unsigned long long& value);
// The field sizes read_field reads as numbers: 1, 2, 4 and 8 bytes.
inline bool numeric_size(int size) { return size == 1 || size == 2 || size == 4 || size == 8; }

class PayloadValues {
 public:
  // Without it, atoms naming a symbol are not compiled: libtraceevent looks them up when it
  // first evaluates them and then rewrites them as numbers. With it they are looked up here
  // and rewritten the same way, so libtraceevent (whose own function list may be empty when
  // a resolver serves it) prints the same value for them.
  void set_symbol_address(SymbolAddress symbol_address) { symbol_address_ = std::move(symbol_address); }

  // Node indexes, or -1 where the argument needs more than this code does.
  int compile_number(tep_event* event, tep_print_arg* arg);
  int compile_string(tep_event* event, tep_print_arg* arg);

  bool evaluate(int number, const tep_record& record, unsigned long long& value) const;
  // Appends the text of a %s argument.
  bool append(int string, const tep_record& record, std::string& out) const;

 private:
  struct NumberNode {
    enum class Kind { constant, field, cast, operation, ternary } kind = Kind::constant;
    unsigned long long constant = 0;  // the value; for a cast, the mask it applies
    const tep_format_field* field = nullptr;
    char op[3] = {};
    int left = -1, right = -1, otherwise = -1;  // operands; ternary: condition, then, else
  };
  struct StringNode {
    enum class Kind { text, dynamic, array, flags, symbol, ternary } kind = Kind::text;
    std::string text;  // the atom; for flags, the delimiter
    bool has_delimiter = false;
    const tep_format_field* field = nullptr;
    int number = -1;  // flags/symbol value, ternary condition
    int yes = -1, no = -1;
    std::vector<std::pair<long long, std::string>> table;  // flags or symbols in order
  };
  bool evaluate_operation(const NumberNode& node, const tep_record& record, unsigned long long& value) const;

  SymbolAddress symbol_address_;
  std::vector<NumberNode> numbers_;
  std::vector<StringNode> strings_;
};

}  // namespace sonde::tracedat
