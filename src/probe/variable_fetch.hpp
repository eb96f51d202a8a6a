#pragma once
// A probe argument turned into the kernel's fetch-arg ("a=%di:s32", "name=+0(%si):string",
// "x=+0(%di):s32", "g=@+0x4010:s64"): the variable found in the scopes at the probe address, its
// DWARF location there (registers, frame-base and CFA offsets, addresses) in x86-64's register
// names, member and index accesses as nested dereferences, and the kernel type of what is
// fetched (or the user's :TYPE, checked). Also $params/$vars, $retval, %REG, @SYM, $argN, $comm.
#include <elfutils/libdw.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "probe/probe_binary.hpp"
#include "probe/probe_spec.hpp"

namespace sonde::probe {

struct FetchArg {
  std::string name;    // the event field's name
  std::string fetch;   // "%di", "+8(%sp)", "$retval"...
  std::string type;    // "s32", "string"..., "" for the kernel's default
  std::string c_type;  // the C type's name, for -V listings ("" when not from DWARF)
  // "name=fetch:type"; an argument passed through as written has no name of its own.
  std::string text() const {
    std::string out = name.empty() ? fetch : name + "=" + fetch;
    return type.empty() ? out : out + ":" + type;
  }
};

struct FetchScope {
  ProbeBinary* binary = nullptr;
  Dwarf_Die function;  // the subprogram or inlined instance probed (its DIE)
  bool has_function = false;
  uint64_t pc = 0;  // the probe address (ELF virtual address)
  bool retprobe = false;
  bool kernel = false;  // a kprobe in a vmlinux (-k): globals are "@SYMBOL+OFFSET", not file offsets
};

// The fetch-args of one spec argument (several for $params and $vars).
Result<std::vector<FetchArg>> convert_probe_arg(const ProbeArg& arg, const FetchScope& scope);

struct ScopeVariable {
  std::string name;
  std::string c_type;  // "char*", "size_t", "struct point*"
  bool parameter = false;
  bool external = false;
  bool has_location = true;  // a location at the probe address
};
// The variables visible at the probe address (innermost scope first, perf's order for -V),
// with externs when `externs`.
std::vector<ScopeVariable> scope_variables(const FetchScope& scope, bool externs);

// The C name of a type DIE as perf prints it in -V ("char*", "struct point*", "long int").
std::string c_type_name(Dwarf_Die* type);
// A :TYPE the kernel takes (u8..u64, s8..s64, x8..x64, string, ustring, char, symbol, bitfields).
bool is_fetch_type(std::string_view type);

}  // namespace sonde::probe
