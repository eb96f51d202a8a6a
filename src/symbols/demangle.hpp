#pragma once
// Demangling as perf 6.1 prints symbol names: C++ names without their parameter list (perf asks
// libiberty for DMGL_NO_OPTS: "geo::Box<long>::spin", not "geo::Box<long>::spin(int)"), Rust
// legacy names without the trailing "::h<hash>" and Rust v0 names ("_R...").
#include <optional>
#include <string>
#include <string_view>

namespace sonde::symbols {

// The demangled form of `name`, or nullopt when it is not a mangled name we know.
std::optional<std::string> demangle(std::string_view name);

// The C++ demangling of `mangled` ("_Z..."), with parameters as __cxa_demangle prints them.
std::optional<std::string> demangle_cxx_full(std::string_view mangled);

// "ns::f<int>" out of "int ns::f<int>(int, long) const": the function's qualified name without
// its return type, parameter list, qualifiers and clone suffix. Special names ("vtable for X",
// "non-virtual thunk to X()") are returned unchanged, as libiberty does.
std::string strip_cxx_parameters(std::string_view demangled);

// Rust symbol demangling: legacy ("_ZN...17h<16 hex>E") and v0 ("_R..."); nullopt when `name`
// is neither.
std::optional<std::string> demangle_rust(std::string_view name);

}  // namespace sonde::symbols
