#include "tracedat/payload_values.hpp"

#include <traceevent/event-parse.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace sonde::tracedat {

namespace {

// A cast's effect on a value, as libtraceevent applies it: masks for the small types (it
// never sign-extends), nothing for pointers, longs, structs and unknown names.
unsigned long long cast_mask(const char* type) {
  std::string_view t(type);
  if (t.size() < 2 || t.back() == '*' || t.rfind("struct", 0) == 0) return ~0ull;
  if (t == "u8" || t == "s8") return 0xff;
  if (t == "u16" || t == "s16") return 0xffff;
  if (t == "u32" || t == "s32") return 0xffffffff;
  if (t.rfind("unsigned ", 0) == 0) t.remove_prefix(9);
  if (t == "char") return 0xff;
  if (t == "short") return 0xffff;
  if (t == "int") return 0xffffffff;
  return ~0ull;
}

bool numeric_field(const tep_format_field* field) {
  if (!field) return false;
  if (field->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) return false;
  return numeric_size(field->size);
}

bool starts_with_digit(const char* text) { return text && std::isdigit(static_cast<unsigned char>(text[0])); }

bool known_operator(const char* op) {
  static constexpr const char* kOperators[] = {
      "!", "!=", "~", "|", "||", "&", "&&", "<", "<<", "<=", ">", ">>", ">=", "==", "-", "+", "/", "%", "*"};
  for (const char* known : kOperators)
    if (std::strcmp(op, known) == 0) return true;
  return false;
}

bool ternary(const tep_print_arg* arg) {
  return arg->op.op && std::strcmp(arg->op.op, "?") == 0 && arg->op.right &&
         arg->op.right->type == TEP_PRINT_OP;
}

}  // namespace

bool read_field(const tep_format_field* field, const tep_record& record, unsigned long long& value) {
  if (field->offset < 0 || field->offset + field->size > record.size) return false;
  const auto* data = static_cast<const uint8_t*>(record.data) + field->offset;
  switch (field->size) {
    case 1:
      value = data[0];
      break;
    case 2: {
      uint16_t v;
      std::memcpy(&v, data, 2);
      value = v;
      break;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, data, 4);
      value = v;
      break;
    }
    case 8: {
      uint64_t v;
      std::memcpy(&v, data, 8);
      value = v;
      break;
    }
    default:
      return false;
  }
  return true;
}

void append_hex(unsigned long long value, std::string& out) {
  char digits[24];
  int count = 0;
  do {
    digits[count++] = "0123456789abcdef"[value & 15];
    value >>= 4;
  } while (value);
  out += "0x";
  while (count) out.push_back(digits[--count]);
}

int PayloadValues::compile_number(tep_event* event, tep_print_arg* arg) {
  if (!arg) return -1;
  NumberNode node;
  switch (arg->type) {
    case TEP_PRINT_NULL:
      break;
    case TEP_PRINT_ATOM:
      // Atoms that name a kernel symbol are looked up by libtraceevent (which then rewrites
      // them as numbers); only numeric ones are taken here.
      if (!arg->atom.atom) return -1;
      if (!starts_with_digit(arg->atom.atom)) {
        if (!symbol_address_) return -1;
        node.constant = symbol_address_(arg->atom.atom);
        // What libtraceevent's test_for_symbol does after its lookup (the atom is its malloc'd
        // string): from now on the atom is that number.
        char* number = static_cast<char*>(std::malloc(32));
        if (!number) return -1;
        std::snprintf(number, 32, "%lld", static_cast<long long>(node.constant));
        std::free(arg->atom.atom);
        arg->atom.atom = number;
        break;
      }
      node.constant = std::strtoull(arg->atom.atom, nullptr, 0);
      break;
    case TEP_PRINT_FIELD:
      if (!arg->field.field) arg->field.field = tep_find_any_field(event, arg->field.name);
      if (!numeric_field(arg->field.field)) return -1;
      node.kind = NumberNode::Kind::field;
      node.field = arg->field.field;
      break;
    case TEP_PRINT_TYPE:
      if (!arg->typecast.type) return -1;
      node.kind = NumberNode::Kind::cast;
      node.constant = cast_mask(arg->typecast.type);
      if ((node.left = compile_number(event, arg->typecast.item)) < 0) return -1;
      break;
    case TEP_PRINT_OP:
      if (!arg->op.op) return -1;
      if (ternary(arg)) {
        node.kind = NumberNode::Kind::ternary;
        if ((node.left = compile_number(event, arg->op.left)) < 0 ||
            (node.right = compile_number(event, arg->op.right->op.left)) < 0 ||
            (node.otherwise = compile_number(event, arg->op.right->op.right)) < 0)
          return -1;
        break;
      }
      if (!known_operator(arg->op.op)) return -1;
      node.kind = NumberNode::Kind::operation;
      std::strncpy(node.op, arg->op.op, 2);
      if (arg->op.left && (node.left = compile_number(event, arg->op.left)) < 0) return -1;
      if ((node.right = compile_number(event, arg->op.right)) < 0) return -1;
      break;
    default:
      return -1;
  }
  numbers_.push_back(node);
  return static_cast<int>(numbers_.size() - 1);
}

bool PayloadValues::evaluate(int index, const tep_record& record, unsigned long long& value) const {
  const NumberNode& node = numbers_[static_cast<size_t>(index)];
  switch (node.kind) {
    case NumberNode::Kind::constant:
      value = node.constant;
      return true;
    case NumberNode::Kind::field:
      return read_field(node.field, record, value);
    case NumberNode::Kind::cast:
      if (!evaluate(node.left, record, value)) return false;
      value &= node.constant;
      return true;
    case NumberNode::Kind::ternary: {
      unsigned long long condition;
      if (!evaluate(node.left, record, condition)) return false;
      return evaluate(condition ? node.right : node.otherwise, record, value);
    }
    case NumberNode::Kind::operation:
      return evaluate_operation(node, record, value);
  }
  return false;
}

bool PayloadValues::evaluate_operation(const NumberNode& node, const tep_record& record,
                                       unsigned long long& value) const {
  unsigned long long left = 0, right = 0;
  if (node.left >= 0 && !evaluate(node.left, record, left)) return false;
  if (!evaluate(node.right, record, right)) return false;
  const char* op = node.op;
  switch (op[0]) {
    case '!':
      value = op[1] ? left != right : !right;
      break;
    case '~':
      value = ~right;
      break;
    case '|':
      value = op[1] ? (left || right) : (left | right);
      break;
    case '&':
      value = op[1] ? (left && right) : (left & right);
      break;
    // A shift by 64 or more is undefined in C; x86-64, where libtraceevent's own shift runs,
    // takes the count modulo 64, and so does this.
    case '<':
      value = op[1] == '<' ? left << (right & 63) : op[1] == '=' ? left <= right : left < right;
      break;
    case '>':
      value = op[1] == '>' ? left >> (right & 63) : op[1] == '=' ? left >= right : left > right;
      break;
    case '=':
      value = left == right;
      break;
    case '-':
      value = left - right;
      break;
    case '+':
      value = left + right;
      break;
    // libtraceevent divides without a check and crashes; a report should not.
    case '/':
      value = right ? left / right : 0;
      break;
    case '%':
      value = right ? left % right : 0;
      break;
    case '*':
      value = left * right;
      break;
    default:
      return false;
  }
  return true;
}

int PayloadValues::compile_string(tep_event* event, tep_print_arg* arg) {
  if (!arg) return -1;
  StringNode node;
  switch (arg->type) {
    case TEP_PRINT_ATOM:
      if (!arg->atom.atom) return -1;
      node.text = arg->atom.atom;
      break;
    case TEP_PRINT_STRING: {
      const tep_format_field* field = tep_find_any_field(event, arg->string.string);
      if (!field || !(field->flags & TEP_FIELD_IS_DYNAMIC) || (field->flags & TEP_FIELD_IS_RELATIVE) ||
          field->size != 4)
        return -1;
      node.kind = StringNode::Kind::dynamic;
      node.field = field;
      break;
    }
    case TEP_PRINT_FIELD: {
      // char arrays; a long-sized non-array field would be looked up among printk formats.
      if (!arg->field.field) arg->field.field = tep_find_any_field(event, arg->field.name);
      const tep_format_field* field = arg->field.field;
      if (!field || !(field->flags & TEP_FIELD_IS_ARRAY) || (field->flags & TEP_FIELD_IS_DYNAMIC) ||
          field->size <= 0)
        return -1;
      node.kind = StringNode::Kind::array;
      node.field = field;
      break;
    }
    case TEP_PRINT_FLAGS:
    case TEP_PRINT_SYMBOL: {
      bool flags = arg->type == TEP_PRINT_FLAGS;
      node.kind = flags ? StringNode::Kind::flags : StringNode::Kind::symbol;
      if ((node.number = compile_number(event, flags ? arg->flags.field : arg->symbol.field)) < 0) return -1;
      if (flags && arg->flags.delim) {
        node.text = arg->flags.delim;
        node.has_delimiter = true;
      }
      // Numeric values only (libtraceevent also knows a few names, which are left to it).
      for (const tep_print_flag_sym* entry = flags ? arg->flags.flags : arg->symbol.symbols; entry;
           entry = entry->next) {
        if (!starts_with_digit(entry->value) || !entry->str) return -1;
        node.table.emplace_back(static_cast<long long>(std::strtoull(entry->value, nullptr, 0)), entry->str);
      }
      break;
    }
    case TEP_PRINT_OP:
      if (!ternary(arg)) return -1;
      node.kind = StringNode::Kind::ternary;
      if ((node.number = compile_number(event, arg->op.left)) < 0 ||
          (node.yes = compile_string(event, arg->op.right->op.left)) < 0 ||
          (node.no = compile_string(event, arg->op.right->op.right)) < 0)
        return -1;
      break;
    default:
      return -1;
  }
  strings_.push_back(std::move(node));
  return static_cast<int>(strings_.size() - 1);
}

bool PayloadValues::append(int index, const tep_record& record, std::string& out) const {
  const StringNode& node = strings_[static_cast<size_t>(index)];
  const auto* data = static_cast<const char*>(record.data);
  auto size = static_cast<uint32_t>(record.size);
  switch (node.kind) {
    case StringNode::Kind::text:
      out += node.text;
      return true;
    case StringNode::Kind::dynamic: {
      const tep_format_field* field = node.field;
      if (field->offset < 0 || static_cast<uint32_t>(field->offset) + 4 > size) return false;
      uint32_t location;
      std::memcpy(&location, data + field->offset, 4);
      uint32_t offset = location & 0xffff, length = location >> 16;
      if (offset > size || offset + length > size || length == 0)
        return true;  // libtraceevent prints nothing
      size_t text_length = strnlen(data + offset, size - offset);
      if (text_length == size - offset) return false;  // no NUL inside the record: the full path decides
      out.append(data + offset, text_length);
      return true;
    }
    case StringNode::Kind::array: {
      const tep_format_field* field = node.field;
      if (field->offset < 0 || static_cast<uint32_t>(field->offset + field->size) > size) return false;
      out.append(data + field->offset, strnlen(data + field->offset, static_cast<size_t>(field->size)));
      return true;
    }
    case StringNode::Kind::flags: {
      unsigned long long number;
      if (!evaluate(node.number, record, number)) return false;
      auto value = static_cast<long long>(number);
      bool printed = false;
      for (const auto& [bits, name] : node.table) {
        if (!value && bits < 0) {
          out += name;
          break;
        }
        if (bits > 0 && (value & bits) == bits) {
          if (printed && node.has_delimiter) out += node.text;
          out += name;
          printed = true;
          value &= ~bits;
        }
      }
      if (value) {
        if (printed && node.has_delimiter) out += node.text;
        append_hex(static_cast<unsigned long long>(value), out);
      }
      return true;
    }
    case StringNode::Kind::symbol: {
      unsigned long long number;
      if (!evaluate(node.number, record, number)) return false;
      for (const auto& [value, name] : node.table)
        if (static_cast<long long>(number) == value) {
          out += name;
          return true;
        }
      append_hex(number, out);
      return true;
    }
    case StringNode::Kind::ternary: {
      unsigned long long condition;
      if (!evaluate(node.number, record, condition)) return false;
      return append(condition ? node.yes : node.no, record, out);
    }
  }
  return false;
}

}  // namespace sonde::tracedat
