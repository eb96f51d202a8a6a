#include "probe/kernel_probe.hpp"

#include <bpf/btf.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <memory>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "probe/variable_fetch.hpp"

namespace sonde::probe {

namespace {

// The x86-64 System V registers of the first six integer arguments, in the kernel's names.
constexpr std::array<const char*, 6> kArgumentRegisters = {"%di", "%si", "%dx", "%cx", "%r8", "%r9"};

struct BtfDeleter {
  void operator()(struct btf* btf) const { btf__free(btf); }
};
using BtfPtr = std::unique_ptr<struct btf, BtfDeleter>;

// Through typedefs and qualifiers.
const struct btf_type* real_type(const struct btf* btf, __u32 id, __u32* real_id = nullptr) {
  int resolved = btf__resolve_type(btf, id);
  if (resolved < 0) return nullptr;
  if (real_id) *real_id = static_cast<__u32>(resolved);
  return btf__type_by_id(btf, static_cast<__u32>(resolved));
}

// perf's kernel type for a value: signed integers sN, the rest (unsigned, pointers, enums) xN.
std::string kernel_type(const struct btf* btf, __u32 id) {
  const struct btf_type* type = real_type(btf, id);
  if (!type) return "";
  if (btf_is_ptr(type)) return "x64";
  if (btf_is_int(type)) {
    bool is_signed = btf_int_encoding(type) & BTF_INT_SIGNED;
    return fmt::format("{}{}", is_signed ? 's' : 'x', type->size * 8);
  }
  if (btf_is_enum(type) || btf_is_enum64(type)) return fmt::format("x{}", type->size * 8);
  return "";
}

struct Fetch {
  std::string text;  // the fetch so far
  bool in_memory = false;
  std::string base;
  long long offset = 0;
};

Fetch memory_at(const std::string& base, long long offset) {
  return {fmt::format("{:+d}({})", offset, base), true, base, offset};
}

// One argument by name from the prototype, with its member accesses.
Result<std::string> btf_argument(const struct btf* btf, const struct btf_type* proto, const ProbeArg& arg) {
  const struct btf_param* params = btf_params(proto);
  int count = btf_vlen(proto);
  int index = -1;
  for (int i = 0; i < count; ++i)
    if (arg.var == btf__name_by_offset(btf, params[i].name_off)) index = i;
  if (index < 0) return failf("'{}': the function has no parameter '{}' (BTF)", arg.text, arg.var);
  if (index >= static_cast<int>(kArgumentRegisters.size()))
    return failf("'{}': parameter {} is passed on the stack; use $stackN", arg.text, index + 1);
  Fetch fetch{kArgumentRegisters[static_cast<size_t>(index)]};
  __u32 type_id = params[index].type;
  for (const ArgField& field : arg.fields) {
    __u32 real_id = 0;
    const struct btf_type* type = real_type(btf, type_id, &real_id);
    if (!type) return failf("'{}': cannot access a member of void", arg.text);
    if (field.is_index) {
      if (!btf_is_ptr(type) && !btf_is_array(type)) return failf("'{}': not an array or a pointer", arg.text);
      __u32 element = btf_is_ptr(type) ? type->type : btf_array(type)->type;
      long long size = btf__resolve_size(btf, element);
      if (size <= 0) return failf("'{}': the element size is unknown", arg.text);
      long long delta = field.index * size;
      if (btf_is_ptr(type))
        fetch = memory_at(fetch.text, delta);
      else if (fetch.in_memory)
        fetch = memory_at(fetch.base, fetch.offset + delta);
      else
        return failf("'{}': the array is not in memory", arg.text);
      type_id = element;
      continue;
    }
    const struct btf_type* record = type;
    if (field.deref) {
      if (!btf_is_ptr(type)) return failf("'{}': '->' on something that is not a pointer", arg.text);
      record = real_type(btf, type->type);
      if (!record) return failf("'{}': '->' through a void pointer", arg.text);
    }
    if (!btf_is_composite(record))
      return failf("'{}': '{}' is not a member of a struct or union", arg.text, field.name);
    const struct btf_member* members = btf_members(record);
    int found = -1;
    for (int i = 0; i < btf_vlen(record) && found < 0; ++i)
      if (field.name == btf__name_by_offset(btf, members[i].name_off)) found = i;
    if (found < 0) return failf("'{}': the type has no member '{}'", arg.text, field.name);
    long long offset = btf_member_bit_offset(record, static_cast<__u32>(found)) / 8;
    if (field.deref)
      fetch = memory_at(fetch.text, offset);
    else if (fetch.in_memory)
      fetch = memory_at(fetch.base, fetch.offset + offset);
    else
      return failf("'{}': the struct is in a register, not in memory", arg.text);
    type_id = members[found].type;
  }
  std::string name = field_name(arg);
  std::string type = arg.type.empty() ? kernel_type(btf, type_id) : arg.type;
  if (!arg.type.empty() && !is_fetch_type(arg.type))
    return failf("'{}': unknown type '{}' (u8..u64, s8..s64, x8..x64, string, b<bits>@<offset>/<size>)",
                 arg.text, arg.type);
  std::string text = fetch.text;
  if (type == "string" || type == "ustring") {
    const struct btf_type* real = real_type(btf, type_id);
    if (real && btf_is_ptr(real)) text = fmt::format("+0({})", text);
  }
  // @user: the last dereference reads user memory ("+u" in kprobe_events).
  if (arg.user_access) {
    if (text.empty() || (text[0] != '+' && text[0] != '-'))
      return failf("'{}': @user needs a dereference (a member, an index or :string)", arg.text);
    text = text.substr(0, 1) + "u" + text.substr(1);
  }
  return type.empty() ? name + "=" + text : name + "=" + text + ":" + type;
}

bool in_kallsyms(const std::string& path, const std::string& function) {
  auto text = read_file(path);
  if (!text) return false;
  std::string_view rest = *text;
  std::string needle = " " + function;
  for (size_t at = rest.find(needle); at != std::string_view::npos; at = rest.find(needle, at + 1)) {
    size_t end = at + needle.size();
    if ((end == rest.size() || rest[end] == '\n' || rest[end] == '\t') && at >= 2 &&
        (rest[at - 1] == 't' || rest[at - 1] == 'T') && rest[at - 2] == ' ')
      return true;
  }
  return false;
}

}  // namespace

Result<KernelProbe> resolve_kernel_probe(const ProbeSpec& spec, const std::string& btf_path,
                                         const std::string& kallsyms) {
  const ProbePoint& point = spec.point;
  if (point.line || !point.lazy_line.empty() || !point.file.empty())
    return fail_with(EOPNOTSUPP,
                     fmt::format("'{}': kernel source lines need a vmlinux with DWARF (-k), which this "
                                 "machine lacks; probe the function, +OFFSET or %return",
                                 spec.text));
  if (point.address || is_glob_pattern(point.function))
    return fail_with(EINVAL, fmt::format("'{}': a kernel probe needs one function by name", spec.text));
  BtfPtr btf(btf__parse(btf_path.c_str(), nullptr));
  const struct btf_type* proto = nullptr;
  if (btf) {
    int id = btf__find_by_name_kind(btf.get(), point.function.c_str(), BTF_KIND_FUNC);
    if (id > 0) proto = btf__type_by_id(btf.get(), btf__type_by_id(btf.get(), static_cast<__u32>(id))->type);
  }
  if (!proto && !in_kallsyms(kallsyms, point.function))
    return fail_with(ENOENT, fmt::format("no kernel function '{}' (in BTF or kallsyms)", point.function));
  KernelProbe probe;
  probe.function = point.function;
  probe.line.kind = kernel::ProbeKind::kprobe;
  probe.line.retprobe = point.retprobe;
  probe.line.place = fmt::format("{}+{}", point.function, point.offset);
  for (const ProbeArg& arg : spec.args) {
    const std::string& var = arg.var;
    if (var.starts_with('$') || var.starts_with('%') || var.starts_with('+') || var.starts_with('-') ||
        var.starts_with('@')) {
      if (var == "$retval" && !point.retprobe)
        return failf("'{}': $retval is only available at %return", arg.text);
      probe.line.fetchargs.push_back(arg.text);
      continue;
    }
    if (point.offset)
      return failf("'{}': arguments by name are known only at the function's entry", arg.text);
    if (point.retprobe)
      return failf("'{}': arguments by name are not known at %return; use $retval", arg.text);
    if (!proto)
      return failf("'{}': the kernel's BTF does not describe {}; use %REG or $argN", arg.text,
                   point.function);
    auto fetched = btf_argument(btf.get(), proto, arg);
    if (!fetched) return tl::unexpected(fetched.error());
    probe.line.fetchargs.push_back(*fetched);
  }
  return probe;
}

}  // namespace sonde::probe
