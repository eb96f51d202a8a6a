#include "tracedat/payload_printer.hpp"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "tracedat/payload_values.hpp"

namespace sonde::tracedat {

namespace {

using Piece = PayloadPrinter::Piece;
using Number = PayloadPrinter::Number;

// printf's integer conversion of `value` passed as the type the length modifier names.
void append_number(const Number& n, unsigned long long value, std::string& out) {
  bool negative = false;
  unsigned long long magnitude;
  bool is_signed = n.conversion == 'd' || n.conversion == 'i';
  switch (n.length) {
    case -2:
      value = is_signed ? static_cast<unsigned long long>(static_cast<signed char>(value))
                        : static_cast<unsigned char>(value);
      break;
    case -1:
      value = is_signed ? static_cast<unsigned long long>(static_cast<short>(value))
                        : static_cast<unsigned short>(value);
      break;
    case 0:
      value = is_signed ? static_cast<unsigned long long>(static_cast<int>(value))
                        : static_cast<unsigned int>(value);
      break;
    default:
      break;
  }
  if (is_signed && static_cast<long long>(value) < 0) {
    negative = true;
    magnitude = 0ull - value;
  } else {
    magnitude = value;
  }
  // Digits backwards from the end of `digits`; none for zero (the precision supplies it).
  char digits[32];
  char* end = digits + sizeof(digits);
  char* first = end;
  unsigned base = 10;
  if (n.conversion == 'x' || n.conversion == 'X') {
    base = 16;
    const char* symbols = n.conversion == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
    for (unsigned long long v = magnitude; v; v >>= 4) *--first = symbols[v & 15];
  } else if (n.conversion == 'o') {
    base = 8;
    for (unsigned long long v = magnitude; v; v >>= 3) *--first = static_cast<char>('0' + (v & 7));
  } else {
    for (unsigned long long v = magnitude; v; v /= 10) *--first = static_cast<char>('0' + v % 10);
  }
  int count = static_cast<int>(end - first);
  int precision = n.precision;
  if (precision < 0) precision = 1;
  int zeros = precision > count ? precision - count : 0;
  std::string_view prefix = negative ? "-" : "";
  if (n.alternate && magnitude != 0 && base == 16) prefix = n.conversion == 'X' ? "0X" : "0x";
  if (n.alternate && base == 8 && zeros == 0 && (count == 0 || *first != '0')) zeros = 1;
  int length = static_cast<int>(prefix.size()) + zeros + count;
  if (n.width <= length && zeros == 0) {  // the common case: no padding at all
    out.append(prefix);
    out.append(first, static_cast<size_t>(count));
    return;
  }
  int pad = n.width > length ? n.width - length : 0;
  if (!n.left && !(n.zero && n.precision < 0)) out.append(static_cast<size_t>(pad), ' ');
  out.append(prefix);
  if (!n.left && n.zero && n.precision < 0) out.append(static_cast<size_t>(pad), '0');
  out.append(static_cast<size_t>(zeros), '0');
  out.append(first, static_cast<size_t>(count));
  if (n.left) out.append(static_cast<size_t>(pad), ' ');
}

// Parses a conversion spec "%[flags][width][.prec][hlLzZ]c" starting at format[0] == '%'.
// Returns its length, or 0 when it is not one this printer handles.
size_t parse_spec(const char* format, Number& n, char& conversion) {
  size_t i = 1;
  for (;; ++i) {
    if (format[i] == '-')
      n.left = true;
    else if (format[i] == '0')
      n.zero = true;
    else if (format[i] == '#')
      n.alternate = true;
    else
      break;
  }
  while (format[i] >= '0' && format[i] <= '9') n.width = n.width * 10 + (format[i++] - '0');
  if (format[i] == '.') {
    ++i;
    n.precision = 0;
    while (format[i] >= '0' && format[i] <= '9') n.precision = n.precision * 10 + (format[i++] - '0');
  }
  for (;; ++i) {
    if (format[i] == 'h')
      --n.length;
    else if (format[i] == 'l')
      ++n.length;
    else if (format[i] == 'L' || format[i] == 'z' || format[i] == 'Z')
      n.length = format[i] == 'L' ? 2 : 1;
    else
      break;
  }
  conversion = format[i];
  if (n.length < -2 || n.length > 2 || n.width > 4096 || n.precision > 4096) return 0;
  return i + 1;
}

bool read_number(const tep_format_field* field, const tep_record& record, unsigned long long& value) {
  return field && read_field(field, record, value);
}

bool readable(const tep_format_field* field) { return !field || numeric_size(field->size); }

void append_signed(long long value, std::string& out) {
  Number n;
  n.length = 2;
  append_number(n, static_cast<unsigned long long>(value), out);
}

// The sched_switch plugin's task: "comm:" (its comm is registered for the pid, as the plugin
// does) and the pid.
void append_comm(tep_handle* tep, const tep_format_field* comm, const tep_record& record,
                 unsigned long long pid, std::string& out) {
  if (!comm) return;
  const char* text = static_cast<const char*>(record.data) + comm->offset;
  size_t length = strnlen(text, static_cast<size_t>(comm->size));
  size_t start = out.size();
  out.append(text, length);
  tep_register_comm(tep, out.c_str() + start, static_cast<int>(pid));
  out += ':';
}

// The kmem plugin's events (libtraceevent's plugin_kmem): "(func+0xoff) " before the payload.
bool kmem_call_site_event(const tep_event* event) {
  if (!event->system || std::strcmp(event->system, "kmem") != 0) return false;
  for (const char* name :
       {"kfree", "kmalloc", "kmalloc_node", "kmem_cache_alloc", "kmem_cache_alloc_node", "kmem_cache_free"})
    if (std::strcmp(event->name, name) == 0) return true;
  return false;
}

bool sched_event(const tep_event* event, const char* name) {
  return event->system && std::strcmp(event->system, "sched") == 0 && std::strcmp(event->name, name) == 0;
}

}  // namespace

std::unique_ptr<PayloadPrinter> PayloadPrinter::compile(tep_event* event,
                                                        const SymbolAddress& symbol_address) {
  if (!event || (event->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_ISBPRINT | TEP_EVENT_FL_PRINTRAW)))
    return nullptr;
  auto printer = std::unique_ptr<PayloadPrinter>(new PayloadPrinter());
  printer->tep_ = event->tep;
  printer->values_.set_symbol_address(symbol_address);
  if (event->handler && !(event->flags & TEP_EVENT_FL_NOHANDLE)) {
    // The handlers of the plugins trace-cmd loads, for the events most traces have.
    if (sched_event(event, "sched_switch")) return compile_sched_switch(event, std::move(printer));
    if (sched_event(event, "sched_wakeup") || sched_event(event, "sched_wakeup_new"))
      return compile_sched_wakeup(event, std::move(printer));
    if (!kmem_call_site_event(event)) return nullptr;
    tep_format_field* call_site = tep_find_field(event, "call_site");
    if (!call_site || !readable(call_site)) return nullptr;
    Piece piece;
    piece.kind = Piece::Kind::call_site;
    piece.field = call_site;
    printer->pieces_.push_back(piece);
    printer->needs_kallsyms_ = true;
  }
  if (!event->print_fmt.format) return nullptr;
  tep_print_arg* arg = event->print_fmt.args;
  const char* format = event->print_fmt.format;
  std::string text;
  auto flush_text = [&] {
    if (text.empty()) return;
    Piece piece;
    piece.text = std::move(text);
    printer->pieces_.push_back(std::move(piece));
    text.clear();
  };
  while (*format) {
    if (*format == '\\') {
      ++format;
      switch (*format) {
        case 'n':
          text += '\n';
          break;
        case 't':
          text += '\t';
          break;
        case 'r':
          text += '\r';
          break;
        case '\0':
          return nullptr;
        default:
          text += *format;
          break;
      }
      ++format;
      continue;
    }
    if (*format != '%') {
      text += *format++;
      continue;
    }
    if (format[1] == '%') {
      text += '%';
      format += 2;
      continue;
    }
    Number number;
    char conversion = 0;
    size_t length = parse_spec(format, number, conversion);
    if (length == 0 || !arg) return nullptr;
    Piece piece;
    if (conversion == 'd' || conversion == 'i' || conversion == 'u' || conversion == 'x' ||
        conversion == 'X' || conversion == 'o') {
      if ((piece.value = printer->values_.compile_number(event, arg)) < 0) return nullptr;
      number.conversion = conversion;
      piece.kind = Piece::Kind::number;
      piece.number = number;
    } else if (conversion == 's' && length == 2) {
      if ((piece.value = printer->values_.compile_string(event, arg)) < 0) return nullptr;
      piece.kind = Piece::Kind::string;
    } else if (conversion == 'p' && !number.left && !number.zero && !number.alternate && number.width == 0 &&
               number.precision < 0 && number.length == 0) {
      if ((piece.value = printer->values_.compile_number(event, arg)) < 0) return nullptr;
      char kind = format[length];
      if (kind == 'S' || kind == 's' || kind == 'F' || kind == 'f') {
        piece.kind = Piece::Kind::function;
        piece.with_offset = kind == 'S' || kind == 'F';
        printer->needs_kallsyms_ = true;
        ++length;
      } else if ((kind >= 'a' && kind <= 'z') || (kind >= 'A' && kind <= 'Z')) {
        return nullptr;  // %pM, %pI4, %pU, %ph... and letters libtraceevent may take as one
      } else {
        piece.kind = Piece::Kind::pointer;
      }
    } else {
      return nullptr;
    }
    flush_text();
    printer->pieces_.push_back(std::move(piece));
    arg = arg->next;
    format += length;
  }
  flush_text();
  return printer;
}

std::unique_ptr<PayloadPrinter> PayloadPrinter::compile_sched_switch(
    tep_event* event, std::unique_ptr<PayloadPrinter> printer) {
  auto& f = printer->sched_;
  f.prev_pid = tep_find_field(event, "prev_pid");
  f.next_pid = tep_find_field(event, "next_pid");
  f.prev_comm = tep_find_any_field(event, "prev_comm");
  f.next_comm = tep_find_any_field(event, "next_comm");
  f.prev_prio = tep_find_field(event, "prev_prio");
  f.next_prio = tep_find_field(event, "next_prio");
  f.prev_state = tep_find_field(event, "prev_state");
  if (!f.prev_pid || !f.next_pid) return nullptr;  // the plugin prints an error mark
  for (auto* field : {f.prev_pid, f.next_pid, f.prev_prio, f.next_prio, f.prev_state})
    if (!readable(field)) return nullptr;
  printer->sched_extent_ = f.extent();
  Piece piece;
  piece.kind = Piece::Kind::sched_switch;
  printer->pieces_.push_back(piece);
  return printer;
}

std::unique_ptr<PayloadPrinter> PayloadPrinter::compile_sched_wakeup(
    tep_event* event, std::unique_ptr<PayloadPrinter> printer) {
  auto& f = printer->sched_;
  f.next_pid = tep_find_field(event, "pid");
  f.next_comm = tep_find_any_field(event, "comm");
  f.next_prio = tep_find_field(event, "prio");
  f.success = tep_find_field(event, "success");
  f.target_cpu = tep_find_field(event, "target_cpu");
  if (!f.next_pid) return nullptr;
  for (auto* field : {f.next_pid, f.next_prio, f.success, f.target_cpu})
    if (!readable(field)) return nullptr;
  printer->sched_extent_ = f.extent();
  Piece piece;
  piece.kind = Piece::Kind::sched_wakeup;
  printer->pieces_.push_back(piece);
  return printer;
}

int PayloadPrinter::SchedFields::extent() const {
  int end = 0;
  for (auto* field :
       {prev_pid, next_pid, prev_comm, next_comm, prev_prio, next_prio, prev_state, success, target_cpu}) {
    if (!field) continue;
    if (field->offset < 0) return INT_MAX;
    end = std::max(end, field->offset + field->size);
  }
  return end;
}

bool PayloadPrinter::print_sched(const Piece& piece, const tep_record& record, std::string& out) const {
  const auto& f = sched_;
  if (record.size < sched_extent_) return false;
  unsigned long long value = 0;
  if (piece.kind == Piece::Kind::sched_wakeup) {
    read_number(f.next_pid, record, value);
    append_comm(tep_, f.next_comm, record, value, out);
    append_signed(static_cast<long long>(value), out);
    if (read_number(f.next_prio, record, value)) {
      out += " [";
      append_signed(static_cast<long long>(value), out);
      out += ']';
    }
    if (read_number(f.success, record, value)) {
      out += " success=";
      append_signed(static_cast<long long>(value), out);
    }
    if (read_number(f.target_cpu, record, value)) {
      out += " CPU:";
      Number cpu;
      cpu.length = 2;
      cpu.conversion = 'u';
      cpu.width = 3;
      cpu.zero = true;
      append_number(cpu, value, out);
    }
    return true;
  }
  read_number(f.prev_pid, record, value);
  append_comm(tep_, f.prev_comm, record, value, out);
  append_signed(static_cast<long long>(value), out);
  out += ' ';
  if (read_number(f.prev_prio, record, value)) {
    out += '[';
    append_signed(static_cast<int>(value), out);
    out += "] ";
  }
  if (read_number(f.prev_state, record, value)) {
    // The task state letters of the plugin (lowest bits first), 'R' for none.
    static constexpr char kStates[] = "SDTtZXxW";
    auto state = static_cast<int>(value);
    bool any = false;
    for (int bit = 0; bit < 8; ++bit) {
      if (!(state & (1 << bit))) continue;
      if (any) out += '|';
      any = true;
      out += kStates[bit];
    }
    if (!any) out += 'R';
  }
  out += " ==> ";
  read_number(f.next_pid, record, value);
  append_comm(tep_, f.next_comm, record, value, out);
  append_signed(static_cast<long long>(value), out);
  if (read_number(f.next_prio, record, value)) {
    out += " [";
    append_signed(static_cast<int>(value), out);
    out += ']';
  }
  return true;
}

bool PayloadPrinter::append_symbol(unsigned long long address, Offset offset_as, std::string& out) const {
  unsigned long long start;
  if (functions_) {
    const KernelFunctions::Function* function = functions_->find(address);
    if (!function) return false;
    out += functions_->name(*function);
    start = function->address;
  } else {
    const char* name = tep_find_function(tep_, address);
    if (!name) return false;
    out += name;
    start = tep_find_function_address(tep_, address);
  }
  if (offset_as != Offset::none) {
    out += "+0x";
    Number offset;
    offset.conversion = 'x';
    offset.length = offset_as == Offset::long_long ? 2 : 0;
    append_number(offset, address - start, out);
  }
  return true;
}

bool PayloadPrinter::print(const tep_record& record, std::string& out) const {
  size_t start = out.size();
  for (const auto& piece : pieces_) {
    bool printed = true;
    unsigned long long value = 0;
    switch (piece.kind) {
      case Piece::Kind::text:
        out += piece.text;
        break;
      case Piece::Kind::number:
        printed = values_.evaluate(piece.value, record, value);
        if (printed) append_number(piece.number, value, out);
        break;
      case Piece::Kind::string:
        printed = values_.append(piece.value, record, out);
        break;
      case Piece::Kind::pointer:
        printed = values_.evaluate(piece.value, record, value);
        if (printed && value == 0)
          out += "(nil)";
        else if (printed)
          append_hex(value, out);
        break;
      case Piece::Kind::function:
        // libtraceevent's %pS/%ps: the function (+0x offset for S and F), or the address.
        printed = values_.evaluate(piece.value, record, value);
        if (printed && !append_symbol(value, piece.with_offset ? Offset::long_long : Offset::none, out))
          append_hex(value, out);
        break;
      case Piece::Kind::call_site: {
        // The kmem plugin: "(func+0xoff) " when the call site is known; the offset as "%x"
        // of an int.
        printed = read_number(piece.field, record, value);
        size_t before = out.size();
        out += '(';
        if (printed && append_symbol(value, Offset::int_value, out)) {
          out += ") ";
        } else {
          out.resize(before);
        }
        break;
      }
      case Piece::Kind::sched_switch:
      case Piece::Kind::sched_wakeup:
        printed = print_sched(piece, record, out);
        break;
    }
    if (!printed) {
      out.resize(start);
      return false;
    }
  }
  return true;
}

}  // namespace sonde::tracedat
