#include "probe/variable_fetch.hpp"

#include <dwarf.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>

#include "base/strings.hpp"
#include "probe/function_sites.hpp"

namespace sonde::probe {

namespace {

// x86-64's DWARF register numbers in the kernel's fetch-arg names.
constexpr std::array<const char*, 17> kDwarfRegisterNames = {"%ax",  "%dx",  "%cx",  "%bx",  "%si",  "%di",
                                                             "%bp",  "%sp",  "%r8",  "%r9",  "%r10", "%r11",
                                                             "%r12", "%r13", "%r14", "%r15", "%ip"};

std::optional<std::string> register_name(unsigned number) {
  if (number >= kDwarfRegisterNames.size()) return std::nullopt;
  return std::string(kDwarfRegisterNames[number]);
}

bool type_of(Dwarf_Die* die, Dwarf_Die* type) {
  Dwarf_Attribute attribute;
  return dwarf_attr_integrate(die, DW_AT_type, &attribute) && dwarf_formref_die(&attribute, type);
}

bool is_qualifier(int tag) {
  return tag == DW_TAG_const_type || tag == DW_TAG_volatile_type || tag == DW_TAG_restrict_type ||
         tag == DW_TAG_atomic_type;
}

// Through typedefs and qualifiers to the type that says what the bytes are.
bool real_type(Dwarf_Die* die, Dwarf_Die* out) {
  Dwarf_Die current = *die;
  for (int hops = 0; hops < 16; ++hops) {
    int tag = dwarf_tag(&current);
    if (tag != DW_TAG_typedef && !is_qualifier(tag)) {
      *out = current;
      return true;
    }
    Dwarf_Die next;
    if (!type_of(&current, &next)) return false;  // void
    current = next;
  }
  return false;
}

std::string offset_fetch(long long offset, const std::string& inner) {
  return fmt::format("{:+d}({})", offset, inner);
}

// A location: either a value held in a register/computed ("%di"), or memory at an address whose
// fetch text is `address` ("+8(%sp)" means the variable's bytes are at sp+8: fetch "+8(%sp)").
struct Location {
  std::string fetch;  // what the kernel fetches to get the value
  bool in_memory = false;
  std::string base;      // in memory: the register or fetch the offset is from
  long long offset = 0;  // in memory
};

// The value in memory at `base` + `offset`; the base "@" is an address in the probed file (a
// global), which the kernel's uprobe fetches as "@+ADDRESS".
Location value_in_memory(std::string base, long long offset) {
  if (base == "@") return {fmt::format("@+{:#x}", offset), true, std::move(base), offset};
  if (base.starts_with('@')) return {fmt::format("{}+{}", base, offset), true, std::move(base), offset};
  return {offset_fetch(offset, base), true, std::move(base), offset};
}

struct Converter {
  const FetchScope& scope;

  auto location_error(std::string_view var, std::string_view what) const {
    return failf("the location of '{}' at this address {}", var, what);
  }

  // The CFA at the probe address as base and offset ("%sp", 8 at a function's entry).
  Result<std::pair<std::string, long long>> cfa() const {
    // .eh_frame's CFI is ours to end (fuzzing found it leaked per argument); .debug_frame's
    // belongs to the Dwarf handle.
    struct ElfCfi {
      Dwarf_CFI* cfi;
      ~ElfCfi() {
        if (cfi) dwarf_cfi_end(cfi);
      }
    } elf_cfi{dwarf_getcfi_elf(scope.binary->image().elf())};
    Dwarf_CFI* cfi = elf_cfi.cfi;
    Dwarf_Frame* frame = nullptr;
    if (!cfi || dwarf_cfi_addrframe(cfi, scope.pc, &frame) != 0) {
      cfi = scope.binary->dwarf() ? dwarf_getcfi(scope.binary->dwarf()) : nullptr;
      if (!cfi || dwarf_cfi_addrframe(cfi, scope.pc, &frame) != 0)
        return fail("no call frame information at the probe address");
    }
    Dwarf_Op* ops = nullptr;
    size_t count = 0;
    int result = dwarf_frame_cfa(frame, &ops, &count);
    std::optional<std::pair<std::string, long long>> answer;
    if (result == 0 && count == 1) {
      unsigned atom = ops[0].atom;
      if (atom == DW_OP_bregx) {
        if (auto reg = register_name(static_cast<unsigned>(ops[0].number)))
          answer = std::make_pair(*reg, static_cast<long long>(ops[0].number2));
      } else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
        if (auto reg = register_name(atom - DW_OP_breg0))
          answer = std::make_pair(*reg, static_cast<long long>(ops[0].number));
      }
    }
    std::free(frame);
    if (!answer) return fail("a call frame address sonde cannot express");
    return *answer;
  }

  Result<Location> frame_base(std::string_view var) const {
    // The frame base is the enclosing subprogram's, also inside an inlined instance.
    std::optional<Dwarf_Die> subprogram =
        scope.binary->dwarf() ? subprogram_at(scope.binary->dwarf(), scope.pc) : std::nullopt;
    Dwarf_Attribute attribute;
    if (!subprogram || !dwarf_attr(&*subprogram, DW_AT_frame_base, &attribute))
      return location_error(var, "needs a frame base the function does not have");
    Dwarf_Op* expr = nullptr;
    size_t length = 0;
    if (dwarf_getlocation_addr(&attribute, scope.pc, &expr, &length, 1) <= 0 || length != 1)
      return location_error(var, "needs a frame base sonde cannot express");
    unsigned atom = expr[0].atom;
    if (atom == DW_OP_call_frame_cfa) {
      auto frame = cfa();
      if (!frame) return location_error(var, frame.error().message);
      return value_in_memory(frame->first, frame->second);
    }
    if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
      if (auto reg = register_name(atom - DW_OP_breg0))
        return value_in_memory(*reg, static_cast<long long>(expr[0].number));
    }
    if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
      if (auto reg = register_name(atom - DW_OP_reg0)) return value_in_memory(*reg, 0);
    }
    return location_error(var, "needs a frame base sonde cannot express");
  }

  Result<Location> variable_location(Dwarf_Die* variable, std::string_view var) const {
    Dwarf_Attribute attribute;
    if (!dwarf_attr_integrate(variable, DW_AT_location, &attribute)) {
      if (dwarf_hasattr_integrate(variable, DW_AT_const_value))
        return location_error(var, "is a constant the compiler folded in (no location)");
      return failf("'{}' has no location: it was optimized out", var);
    }
    Dwarf_Op* expr = nullptr;
    size_t length = 0;
    int found = dwarf_getlocation_addr(&attribute, scope.pc, &expr, &length, 1);
    if (found <= 0 || length == 0)
      return failf("'{}' has no location at this address: perhaps it has been optimized out here", var);
    unsigned atom = expr[0].atom;
    // DW_OP_bregN 0; DW_OP_stack_value: the register holds the value.
    if (length == 2 && expr[1].atom == DW_OP_stack_value && atom >= DW_OP_breg0 && atom <= DW_OP_breg31 &&
        expr[0].number == 0) {
      if (auto reg = register_name(atom - DW_OP_breg0)) return Location{*reg};
    }
    if (length >= 2 && expr[length - 1].atom == DW_OP_stack_value)
      return location_error(
          var, "is computed from registers (DW_OP_stack_value), not stored: the kernel cannot fetch it");
    if (length == 1) {
      if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
        if (auto reg = register_name(atom - DW_OP_reg0)) return Location{*reg};
      }
      if (atom == DW_OP_regx) {
        if (auto reg = register_name(static_cast<unsigned>(expr[0].number))) return Location{*reg};
      }
      if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
        if (auto reg = register_name(atom - DW_OP_breg0))
          return value_in_memory(*reg, static_cast<long long>(static_cast<int64_t>(expr[0].number)));
      }
      if (atom == DW_OP_fbreg) {
        auto base = frame_base(var);
        if (!base) return tl::unexpected(base.error());
        return value_in_memory(base->base, base->offset + static_cast<int64_t>(expr[0].number));
      }
      if (atom == DW_OP_addr && scope.kernel) {
        // The kernel moves (KASLR): a global is named by its symbol and the offset into it.
        const symbols::RawSymbol* symbol = scope.binary->symbol_at(expr[0].number);
        if (!symbol) return location_error(var, "is at an address no symbol of the vmlinux names");
        return Location{fmt::format("@{}+{}", symbol->name, expr[0].number - symbol->start), true,
                        fmt::format("@{}", symbol->name),
                        static_cast<long long>(expr[0].number - symbol->start)};
      }
      if (atom == DW_OP_addr) {
        auto offset = global_offset(expr[0].number);
        if (!offset) return location_error(var, "is outside the binary's loaded segments");
        return value_in_memory("@", static_cast<long long>(*offset));
      }
    }
    return location_error(var,
                          fmt::format("is a DWARF expression sonde cannot fetch yet (DW_OP {:#x})", atom));
  }

  // The kernel's uprobe "@+OFFSET" is relative to the probed file's text mapping.
  std::optional<uint64_t> global_offset(uint64_t vaddr) const {
    for (const symbols::LoadSegment& segment : scope.binary->image().load_segments())
      if (segment.executable) return vaddr - segment.vaddr + segment.offset;
    return std::nullopt;
  }

  // The variable named `name` in the scopes at the probe address, innermost first, up to the
  // probed function, then the CU's globals.
  std::optional<Dwarf_Die> find_variable(std::string_view name) const {
    for (Dwarf_Die& scope_die : scope_chain(scope.function, scope.pc))
      if (auto found = child_named(&scope_die, name)) return found;
    Dwarf_Die cu;
    if (!dwarf_diecu(const_cast<Dwarf_Die*>(&scope.function), &cu, nullptr, nullptr)) return std::nullopt;
    return child_named(&cu, name);
  }

  static std::optional<Dwarf_Die> child_named(Dwarf_Die* parent, std::string_view name) {
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0) return std::nullopt;
    do {
      int tag = dwarf_tag(&child);
      if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) continue;
      const char* own = integrated_name(&child);
      if (own && name == own) return child;
    } while (dwarf_siblingof(&child, &child) == 0);
    return std::nullopt;
  }

  // The kernel type of a value of `type` (its size and signedness), "" for perf's default.
  static std::string kernel_type(Dwarf_Die* type) {
    Dwarf_Die real;
    if (!real_type(type, &real)) return "";
    int tag = dwarf_tag(&real);
    Dwarf_Word size = 0;
    Dwarf_Attribute attribute;
    if (dwarf_attr_integrate(&real, DW_AT_byte_size, &attribute)) dwarf_formudata(&attribute, &size);
    // perf's choice: signed integers in decimal, everything else (unsigned, pointers) in hex.
    if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type)
      return "x64";
    if (tag == DW_TAG_enumeration_type) return size ? fmt::format("x{}", size * 8) : "";
    if (tag != DW_TAG_base_type || size == 0 || size > 8) return "";
    Dwarf_Word encoding = 0;
    if (dwarf_attr(&real, DW_AT_encoding, &attribute)) dwarf_formudata(&attribute, &encoding);
    bool is_signed = encoding == DW_ATE_signed || encoding == DW_ATE_signed_char;
    return fmt::format("{}{}", is_signed ? 's' : 'x', size * 8);
  }

  // Member or index accesses, each a dereference or an offset from what came before.
  Result<std::pair<Location, Dwarf_Die>> access(Location location, Dwarf_Die type,
                                                const ProbeArg& arg) const {
    for (const ArgField& field : arg.fields) {
      Dwarf_Die real;
      if (!real_type(&type, &real)) return failf("'{}': cannot access a member of void", arg.text);
      int tag = dwarf_tag(&real);
      if (field.is_index) {
        Dwarf_Die element;
        if ((tag != DW_TAG_pointer_type && tag != DW_TAG_array_type) || !type_of(&real, &element))
          return failf("'{}': '{}' is not an array or a pointer", arg.text, arg.var);
        Dwarf_Die element_real;
        Dwarf_Word size = 0;
        if (real_type(&element, &element_real)) {
          Dwarf_Attribute attribute;
          if (dwarf_attr_integrate(&element_real, DW_AT_byte_size, &attribute))
            dwarf_formudata(&attribute, &size);
        }
        if (size == 0) return failf("'{}': the element size is unknown", arg.text);
        long long delta = field.index * static_cast<long long>(size);
        if (tag == DW_TAG_pointer_type)
          location = value_in_memory(location.fetch, delta);
        else if (location.in_memory)
          location = value_in_memory(location.base, location.offset + delta);
        else
          return failf("'{}': the array is not in memory", arg.text);
        type = element;
        continue;
      }
      Dwarf_Die record = real;
      if (field.deref) {
        if (tag != DW_TAG_pointer_type)
          return failf("'{}': '->' on something that is not a pointer", arg.text);
        Dwarf_Die pointee;
        if (!type_of(&real, &pointee) || !real_type(&pointee, &record))
          return failf("'{}': '->' through a void pointer", arg.text);
      } else if (tag == DW_TAG_pointer_type) {
        return failf("'{}': '{}' is a pointer: use '->' for its members", arg.text, arg.var);
      }
      int record_tag = dwarf_tag(&record);
      if (record_tag != DW_TAG_structure_type && record_tag != DW_TAG_union_type &&
          record_tag != DW_TAG_class_type)
        return failf("'{}': '.{}' on something that is not a struct or union", arg.text, field.name);
      auto member = member_named(&record, field.name);
      if (!member) return failf("'{}': the type has no member '{}'", arg.text, field.name);
      Dwarf_Word offset = 0;
      Dwarf_Attribute attribute;
      if (dwarf_attr_integrate(&*member, DW_AT_data_member_location, &attribute))
        dwarf_formudata(&attribute, &offset);
      if (field.deref)
        location = value_in_memory(location.fetch, static_cast<long long>(offset));
      else if (location.in_memory)
        location = value_in_memory(location.base, location.offset + static_cast<long long>(offset));
      else
        return failf("'{}': the struct is in a register, not in memory", arg.text);
      if (!type_of(&*member, &type)) return failf("'{}': member '{}' has no type", arg.text, field.name);
      member_die_ = *member;
      has_member_ = true;
    }
    return std::make_pair(location, type);
  }

  static std::optional<Dwarf_Die> member_named(Dwarf_Die* record, std::string_view name) {
    Dwarf_Die child;
    if (dwarf_child(record, &child) != 0) return std::nullopt;
    do {
      if (dwarf_tag(&child) != DW_TAG_member) continue;
      const char* own = dwarf_diename(&child);
      if (own && name == own) return child;
      if (!own) {  // an anonymous struct or union: its members are the parent's
        Dwarf_Die inner_type, inner_real;
        if (type_of(&child, &inner_type) && real_type(&inner_type, &inner_real))
          if (auto inner = member_named(&inner_real, name)) return inner;
      }
    } while (dwarf_siblingof(&child, &child) == 0);
    return std::nullopt;
  }

  Result<FetchArg> variable(const ProbeArg& arg, std::string_view name) const {
    if (!scope.binary->dwarf()) return fail(scope.binary->missing_debug_info_hint());
    auto die = find_variable(name);
    if (!die)
      return failf("there is no variable '{}' at this probe point (see -V for the ones there are)", name);
    auto location = variable_location(&*die, name);
    if (!location) return tl::unexpected(location.error());
    Dwarf_Die type;
    if (!type_of(&*die, &type)) return failf("'{}' has no type", name);
    has_member_ = false;
    auto accessed = access(*location, type, arg);
    if (!accessed) return tl::unexpected(accessed.error());
    FetchArg out{field_name(arg), accessed->first.fetch, "", c_type_name(&accessed->second)};
    auto typed = apply_type(out, accessed->first, accessed->second, arg);
    if (!typed) return tl::unexpected(typed.error());
    return out;
  }

  Result<void> apply_type(FetchArg& out, const Location& location, Dwarf_Die type,
                          const ProbeArg& arg) const {
    if (arg.type.empty()) {
      // A bitfield member: the kernel's b<width>@<offset>/<container>.
      Dwarf_Attribute attribute;
      Dwarf_Word bits = 0;
      if (has_member_ && dwarf_attr(&member_die_, DW_AT_bit_size, &attribute) &&
          dwarf_formudata(&attribute, &bits) == 0 && bits) {
        Dwarf_Word bit_offset = 0;
        if (dwarf_attr(&member_die_, DW_AT_data_bit_offset, &attribute))
          dwarf_formudata(&attribute, &bit_offset);
        // The container is the member's declared type; the offset counts from the struct.
        Dwarf_Die real;
        Dwarf_Word container = 0;
        if (real_type(&type, &real) && dwarf_attr_integrate(&real, DW_AT_byte_size, &attribute))
          dwarf_formudata(&attribute, &container);
        if (container == 0 || container > 8) container = 4;
        Dwarf_Word container_bits = container * 8;
        long long byte_offset = static_cast<long long>(bit_offset / container_bits * container);
        out.type = fmt::format("b{}@{}/{}", bits, bit_offset % container_bits, container_bits);
        out.fetch = offset_fetch(location.offset + byte_offset, location.base);
        return {};
      }
      out.type = kernel_type(&type);
      return {};
    }
    if (arg.type == "x" || arg.type == "s" || arg.type == "u") {
      std::string own = kernel_type(&type);
      if (own.size() < 2) return failf("'{}': '{}' needs an integer variable", arg.text, arg.type);
      out.type = arg.type + own.substr(1);
      return {};
    }
    if (!is_fetch_type(arg.type))
      return failf(
          "'{}': unknown type '{}' (u8..u64, s8..s64, x8..x64, string, ustring, b<bits>@<offset>/<size>)",
          arg.text, arg.type);
    if (arg.type == "string" || arg.type == "ustring") {
      // A char pointer is dereferenced to reach the bytes; a char array already is them.
      Dwarf_Die real;
      if (!real_type(&type, &real)) return failf("'{}': a string needs a char pointer or array", arg.text);
      int tag = dwarf_tag(&real);
      // The kernel reads the string at the address of the last dereference: a pointer's value
      // is that address, an array in memory already is one.
      if (tag == DW_TAG_pointer_type)
        out.fetch = offset_fetch(0, out.fetch);
      else if (tag != DW_TAG_array_type || !location.in_memory)
        return failf("'{}': a string needs a char pointer or array", arg.text);
    }
    out.type = arg.type;
    return {};
  }

  mutable Dwarf_Die member_die_{};
  mutable bool has_member_ = false;
};

}  // namespace

bool is_fetch_type(std::string_view type) {
  static constexpr std::array<std::string_view, 17> kTypes = {
      "u8",  "u16", "u32", "u64",    "s8",      "s16",  "s32",    "s64",   "x8",
      "x16", "x32", "x64", "string", "ustring", "char", "symbol", "symstr"};
  if (std::find(kTypes.begin(), kTypes.end(), type) != kTypes.end()) return true;
  // b<bit-width>@<bit-offset>/<container-size>
  if (!type.starts_with('b')) return false;
  size_t at = type.find('@'), slash = type.find('/');
  if (at == std::string_view::npos || slash == std::string_view::npos || slash < at) return false;
  return parse_uint(type.substr(1, at - 1), 10) && parse_uint(type.substr(at + 1, slash - at - 1), 10) &&
         parse_uint(type.substr(slash + 1), 10);
}

namespace {

// perf's spelling of a type, "" where perf gives up (a pointer to void).
std::string known_type_name(Dwarf_Die* type) {
  Dwarf_Die current = *type;
  for (int hops = 0; hops < 16; ++hops) {
    int tag = dwarf_tag(&current);
    if (tag == DW_TAG_pointer_type || tag == DW_TAG_array_type) {
      Dwarf_Die inner;
      if (!type_of(&current, &inner)) return "";
      std::string pointee = known_type_name(&inner);
      return pointee.empty() ? "" : pointee + "*";
    }
    if (tag == DW_TAG_subroutine_type) return "(function_type)";
    if (is_qualifier(tag)) {
      Dwarf_Die inner;
      if (!type_of(&current, &inner)) return "";
      current = inner;
      continue;
    }
    const char* name = dwarf_diename(&current);
    const char* prefix = tag == DW_TAG_structure_type     ? "struct "
                         : tag == DW_TAG_union_type       ? "union "
                         : tag == DW_TAG_enumeration_type ? "enum "
                         : tag == DW_TAG_class_type       ? "class "
                                                          : "";
    return std::string(prefix) + (name ? name : "");
  }
  return "";
}

}  // namespace

std::string c_type_name(Dwarf_Die* type) {
  std::string name = known_type_name(type);
  return name.empty() ? "(unknown_type)" : name;
}

Result<std::vector<FetchArg>> convert_probe_arg(const ProbeArg& arg, const FetchScope& scope) {
  Converter converter{scope};
  std::vector<FetchArg> out;
  const std::string& var = arg.var;
  // Registers, stack slots, $retval, $argN, $comm and raw fetches go to the kernel as written
  // (perf's way: the kernel names an unnamed one argN and checks it).
  // uprobes have no $argN (the kernel refuses it): the x86-64 argument registers stand in.
  if (var.starts_with("$arg") && var.size() > 4) {
    auto index = parse_uint(std::string_view(var).substr(4), 10);
    constexpr std::array<const char*, 6> kArgumentRegisters = {"%di", "%si", "%dx", "%cx", "%r8", "%r9"};
    if (!index || *index == 0) return failf("'{}': $argN counts from 1", arg.text);
    if (*index > kArgumentRegisters.size())
      return failf("'{}': argument {} is passed on the stack; fetch it with +OFFSET(%sp)", arg.text, *index);
    if (!arg.type.empty() && !is_fetch_type(arg.type))
      return failf("'{}': unknown type '{}'", arg.text, arg.type);
    std::string name = arg.name.empty() ? var.substr(1) : arg.name;
    return std::vector<FetchArg>{FetchArg{name, kArgumentRegisters[*index - 1], arg.type, ""}};
  }
  if (var.starts_with('$') && var != "$params" && var != "$vars") {
    if (var == "$retval" && !scope.retprobe)
      return failf("'{}': $retval is only available at %return", arg.text);
    if (!arg.type.empty() && !is_fetch_type(arg.type))
      return failf("'{}': unknown type '{}'", arg.text, arg.type);
    return std::vector<FetchArg>{FetchArg{"", arg.text, "", ""}};
  }
  if (var.starts_with('%') || var.starts_with('+') || var.starts_with('-') || var.starts_with("@+")) {
    if (!arg.type.empty() && !is_fetch_type(arg.type))
      return failf("'{}': unknown type '{}'", arg.text, arg.type);
    return std::vector<FetchArg>{FetchArg{"", arg.text, "", ""}};
  }
  if (var.starts_with('@')) {
    // A global by name: DWARF gives its type; the symbol table its address alone. The kernel's
    // uprobe takes it as "@+ADDRESS" in the file (it refuses symbols).
    std::string symbol = var.substr(1);
    if (scope.binary->dwarf() && scope.has_function) {
      ProbeArg as_variable = arg;
      as_variable.var = symbol;
      if (auto fetched = converter.variable(as_variable, symbol)) return std::vector<FetchArg>{*fetched};
    }
    for (const auto& raw : scope.binary->function_symbols())
      if (raw.name == symbol)
        if (auto offset = converter.global_offset(raw.start)) {
          FetchArg fetch{arg.name.empty() ? symbol : arg.name, fmt::format("@+{:#x}", *offset), arg.type, ""};
          if (!arg.type.empty() && !is_fetch_type(arg.type))
            return failf("'{}': unknown type '{}'", arg.text, arg.type);
          return std::vector<FetchArg>{fetch};
        }
    return failf("'{}': no variable or symbol '{}' in {}", arg.text, symbol, scope.binary->path());
  }
  if (var == "$params" || var == "$vars") {
    for (const ScopeVariable& v : scope_variables(scope, false)) {
      if (var == "$params" && !v.parameter) continue;
      ProbeArg one;
      one.var = v.name;
      one.text = v.name;
      auto fetched = converter.variable(one, v.name);
      if (fetched) out.push_back(std::move(*fetched));  // perf skips what has no location here
    }
    return out;
  }
  if (!scope.has_function) {
    if (!scope.binary->dwarf()) return fail(scope.binary->missing_debug_info_hint());
    return failf("'{}': no function scope at this address to find variables in", arg.text);
  }
  auto fetched = converter.variable(arg, var);
  if (!fetched) return tl::unexpected(fetched.error());
  out.push_back(std::move(*fetched));
  return out;
}

std::vector<ScopeVariable> scope_variables(const FetchScope& scope, bool externs) {
  std::vector<ScopeVariable> variables;
  if (!scope.has_function) return variables;
  Dwarf_Die cu;
  if (!dwarf_diecu(const_cast<Dwarf_Die*>(&scope.function), &cu, nullptr, nullptr)) return variables;
  auto collect = [&](Dwarf_Die* parent, bool external) {
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0) return;
    do {
      int tag = dwarf_tag(&child);
      if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) continue;
      const char* name = integrated_name(&child);
      if (!name) continue;
      if (external && tag != DW_TAG_variable) continue;  // perf: every variable of the file scope
      ScopeVariable v;
      v.name = name;
      v.parameter = tag == DW_TAG_formal_parameter;
      v.external = external;
      Dwarf_Die type;
      v.c_type = type_of(&child, &type) ? c_type_name(&type) : "void";
      Dwarf_Attribute attribute;
      Dwarf_Op* expr = nullptr;
      size_t length = 0;
      // perf shows a variable when its location at the address starts with an operation it
      // converts (an address, a register, a register or frame-base offset).
      v.has_location =
          dwarf_attr_integrate(&child, DW_AT_location, &attribute) &&
          dwarf_getlocation_addr(&attribute, scope.pc, &expr, &length, 1) > 0 && length > 0 &&
          (expr[0].atom == DW_OP_addr || expr[0].atom == DW_OP_fbreg || expr[0].atom == DW_OP_bregx ||
           expr[0].atom == DW_OP_regx || (expr[0].atom >= DW_OP_breg0 && expr[0].atom <= DW_OP_breg31) ||
           (expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31));
      variables.push_back(std::move(v));
    } while (dwarf_siblingof(&child, &child) == 0);
  };
  // Outermost first: perf's order for $vars (the function's, then each block's).
  auto chain = scope_chain(scope.function, scope.pc);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) collect(&*it, false);
  if (externs) collect(&cu, true);
  return variables;
}

}  // namespace sonde::probe
