#include "tracedat/payload_printer.hpp"

#include <cstring>

#include <traceevent/event-parse.h>

namespace sonde::tracedat {

namespace {

using Piece = PayloadPrinter::Piece;
using Number = PayloadPrinter::Number;

// A cast's effect on a value, as libtraceevent applies it: masks for the small types (it
// never sign-extends), nothing for pointers, longs, structs and unknown names.
unsigned long long apply_cast(unsigned long long value, const char* type) {
  std::string_view t(type);
  if (t.size() < 2 || t.back() == '*' || t.rfind("struct", 0) == 0) return value;
  if (t == "u8" || t == "s8") return value & 0xff;
  if (t == "u16" || t == "s16") return value & 0xffff;
  if (t == "u32" || t == "s32") return value & 0xffffffff;
  if (t.rfind("unsigned ", 0) == 0) t.remove_prefix(9);
  if (t == "char") return value & 0xff;
  if (t == "short") return value & 0xffff;
  if (t == "int") return value & 0xffffffff;
  return value;
}

bool numeric_field(const tep_format_field* field) {
  if (!field) return false;
  if (field->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) return false;
  return field->size == 1 || field->size == 2 || field->size == 4 || field->size == 8;
}

// A number argument this printer evaluates: a field, or casts around one.
bool supported_number(tep_event* event, tep_print_arg* arg) {
  while (arg && arg->type == TEP_PRINT_TYPE) arg = arg->typecast.item;
  if (!arg || arg->type != TEP_PRINT_FIELD) return false;
  if (!arg->field.field) arg->field.field = tep_find_any_field(event, arg->field.name);
  return numeric_field(arg->field.field);
}

// The field's value with the casts around it applied; false if the field lies outside the
// record (libtraceevent then warns, which the full path does).
bool evaluate(const tep_print_arg* arg, const tep_record& record, unsigned long long& value) {
  if (arg->type == TEP_PRINT_TYPE) {
    if (!evaluate(arg->typecast.item, record, value)) return false;
    value = apply_cast(value, arg->typecast.type);
    return true;
  }
  const tep_format_field* field = arg->field.field;
  if (field->offset < 0 || field->offset + field->size > record.size) return false;
  const auto* data = static_cast<const uint8_t*>(record.data) + field->offset;
  switch (field->size) {
    case 1: value = data[0]; break;
    case 2: { uint16_t v; std::memcpy(&v, data, 2); value = v; break; }
    case 4: { uint32_t v; std::memcpy(&v, data, 4); value = v; break; }
    default: { uint64_t v; std::memcpy(&v, data, 8); value = v; break; }
  }
  return true;
}

// printf's integer conversion of `value` passed as the type the length modifier names.
void append_number(const Number& n, unsigned long long value, std::string& out) {
  bool negative = false;
  unsigned long long magnitude;
  bool is_signed = n.conversion == 'd' || n.conversion == 'i';
  switch (n.length) {
    case -2: value = is_signed ? static_cast<unsigned long long>(static_cast<signed char>(value)) : static_cast<unsigned char>(value); break;
    case -1: value = is_signed ? static_cast<unsigned long long>(static_cast<short>(value)) : static_cast<unsigned short>(value); break;
    case 0: value = is_signed ? static_cast<unsigned long long>(static_cast<int>(value)) : static_cast<unsigned int>(value); break;
    default: break;
  }
  if (is_signed && static_cast<long long>(value) < 0) {
    negative = true;
    magnitude = 0ull - value;
  } else {
    magnitude = value;
  }
  unsigned base = n.conversion == 'x' || n.conversion == 'X' ? 16 : n.conversion == 'o' ? 8 : 10;
  const char* symbols = n.conversion == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  char digits[32];
  int count = 0;
  for (unsigned long long v = magnitude; v; v /= base) digits[count++] = symbols[v % base];
  int precision = n.precision;
  if (precision < 0) precision = 1;
  int zeros = precision > count ? precision - count : 0;
  std::string_view prefix = negative ? "-" : "";
  if (n.alternate && magnitude != 0 && base == 16) prefix = n.conversion == 'X' ? "0X" : "0x";
  if (n.alternate && base == 8 && zeros == 0 && (count == 0 || digits[count - 1] != '0')) zeros = 1;
  int length = static_cast<int>(prefix.size()) + zeros + count;
  int pad = n.width > length ? n.width - length : 0;
  if (!n.left && !(n.zero && n.precision < 0)) out.append(static_cast<size_t>(pad), ' ');
  out.append(prefix);
  if (!n.left && n.zero && n.precision < 0) out.append(static_cast<size_t>(pad), '0');
  out.append(static_cast<size_t>(zeros), '0');
  while (count) out.push_back(digits[--count]);
  if (n.left) out.append(static_cast<size_t>(pad), ' ');
}

// Parses a conversion spec "%[flags][width][.prec][hlLzZ]c" starting at format[0] == '%'.
// Returns its length, or 0 when it is not one this printer handles.
size_t parse_spec(const char* format, Number& n, char& conversion) {
  size_t i = 1;
  for (;; ++i) {
    if (format[i] == '-') n.left = true;
    else if (format[i] == '0') n.zero = true;
    else if (format[i] == '#') n.alternate = true;
    else break;
  }
  while (format[i] >= '0' && format[i] <= '9') n.width = n.width * 10 + (format[i++] - '0');
  if (format[i] == '.') {
    ++i;
    n.precision = 0;
    while (format[i] >= '0' && format[i] <= '9') n.precision = n.precision * 10 + (format[i++] - '0');
  }
  for (;; ++i) {
    if (format[i] == 'h') --n.length;
    else if (format[i] == 'l') ++n.length;
    else if (format[i] == 'L' || format[i] == 'z' || format[i] == 'Z') n.length = format[i] == 'L' ? 2 : 1;
    else break;
  }
  conversion = format[i];
  if (n.length < -2 || n.length > 2 || n.width > 4096 || n.precision > 4096) return 0;
  return i + 1;
}

}  // namespace

std::unique_ptr<PayloadPrinter> PayloadPrinter::compile(tep_event* event) {
  if (!event || (event->handler && !(event->flags & TEP_EVENT_FL_NOHANDLE))) return nullptr;
  if (event->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_ISBPRINT | TEP_EVENT_FL_PRINTRAW)) return nullptr;
  if (!event->print_fmt.format) return nullptr;
  auto printer = std::unique_ptr<PayloadPrinter>(new PayloadPrinter());
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
        case 'n': text += '\n'; break;
        case 't': text += '\t'; break;
        case 'r': text += '\r'; break;
        case '\0': return nullptr;
        default: text += *format; break;
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
    if (conversion == 'd' || conversion == 'i' || conversion == 'u' || conversion == 'x' || conversion == 'X' ||
        conversion == 'o') {
      if (!supported_number(event, arg)) return nullptr;
      number.conversion = conversion;
      piece.kind = Piece::Kind::number;
      piece.number = number;
      piece.arg = arg;
    } else if (conversion == 's' && length == 2 && arg->type == TEP_PRINT_STRING) {
      const tep_format_field* field = tep_find_any_field(event, arg->string.string);
      if (!field || !(field->flags & TEP_FIELD_IS_DYNAMIC) || (field->flags & TEP_FIELD_IS_RELATIVE) ||
          field->size != 4)
        return nullptr;
      piece.kind = Piece::Kind::string;
      piece.string_field = field;
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

bool PayloadPrinter::print(const tep_record& record, std::string& out) const {
  size_t start = out.size();
  for (const auto& piece : pieces_) {
    switch (piece.kind) {
      case Piece::Kind::text:
        out += piece.text;
        break;
      case Piece::Kind::number: {
        unsigned long long value = 0;
        if (!evaluate(piece.arg, record, value)) {
          out.resize(start);
          return false;
        }
        append_number(piece.number, value, out);
        break;
      }
      case Piece::Kind::string: {
        const tep_format_field* field = piece.string_field;
        if (field->offset < 0 || field->offset + 4 > record.size) {
          out.resize(start);
          return false;
        }
        const auto* data = static_cast<const char*>(record.data);
        uint32_t location;
        std::memcpy(&location, data + field->offset, 4);
        uint32_t offset = location & 0xffff, length = location >> 16;
        auto size = static_cast<uint32_t>(record.size);
        if (offset > size || offset + length > size || length == 0) break;  // libtraceevent prints nothing
        size_t text_length = strnlen(data + offset, size - offset);
        if (text_length == size - offset) {  // no NUL inside the record: leave it to the full path
          out.resize(start);
          return false;
        }
        out.append(data + offset, text_length);
        break;
      }
    }
  }
  return true;
}

}  // namespace sonde::tracedat
