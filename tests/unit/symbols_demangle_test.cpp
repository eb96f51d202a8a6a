// Demangling as perf 6.1 prints names: C++ without parameters (compared with c++filt -p, which
// uses libiberty as perf does), Rust legacy and v0.
#include <gtest/gtest.h>

#include <sstream>

#include "symbols/demangle.hpp"
#include "symbols_support.hpp"

using namespace sonde;
using namespace sonde::test;

TEST(Demangle, CxxWithoutParametersAsLibibertyPrintsThem) {
  const char* cases[][2] = {
      {"_ZN3geo3BoxIlE4spinEi", "geo::Box<long>::spin"},
      {"_ZN3geo4areaEil.constprop.0", "geo::area"},
      {"_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo"},
      {"_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()"},
      // A local name keeps its enclosing function's parameters (c++filt -p, perf 6.1).
      {"_ZZ3fooiENKUlvE_clEv", "foo(int)::{lambda()#1}::operator()"},
      {"_ZZN6fuzzer6Fuzzer6RunOneEPKhmbPNS_9InputInfoEbPbENK3$_1clEv",
       "fuzzer::Fuzzer::RunOne(unsigned char const*, unsigned long, bool, fuzzer::InputInfo*, bool, "
       "bool*)::$_1::"
       "operator()"},
      {"_ZNK3FooclEv", "Foo::operator()"},
      {"_ZN3FoolsIiEERS_T_", "Foo::operator<< <int>"},
      {"_ZSt3maxIiERKT_S2_S2_", "std::max<int>"},
      {"_ZN3foo3barB5cxx11Ev", "foo::bar[abi:cxx11]"},
      {"_ZThn8_N3Foo3barEv", "non-virtual thunk to Foo::bar()"},
      {"_ZTV3Foo", "vtable for Foo"},
  };
  for (auto& [mangled, expected] : cases) {
    auto name = symbols::demangle(mangled);
    ASSERT_TRUE(name) << mangled;
    EXPECT_EQ(*name, expected) << mangled;
  }
  EXPECT_FALSE(symbols::demangle("main"));
  EXPECT_FALSE(symbols::demangle("_Znot_valid"));
}

TEST(Demangle, CxxAgreesWithCxxfiltOnLibstdcxx) {
  std::string names = shell_output(
      "nm -D --defined-only /usr/lib/x86_64-linux-gnu/libstdc++.so.6 2>/dev/null | awk '$2 ~ /[TW]/ {print "
      "$3}' | "
      "grep '^_Z' | awk 'NR % 7 == 0' | head -400");
  if (names.empty()) GTEST_SKIP() << "libstdc++ or nm not found";
  std::string expected = shell_output("echo '" + names + "' | c++filt -p");
  std::istringstream mangled_lines(names), expected_lines(expected);
  std::string mangled, oracle;
  int compared = 0;
  while (std::getline(mangled_lines, mangled) && std::getline(expected_lines, oracle)) {
    if (mangled.empty()) continue;
    // c++filt prints std::basic_string<...> where __cxa_demangle says std::string: libiberty's
    // DMGL_VERBOSE, which perf does not set; compare the names that have no such abbreviation.
    auto ours = symbols::demangle(mangled);
    ASSERT_TRUE(ours) << mangled;
    if (ours->find("std::string") != std::string::npos || ours->find("std::istream") != std::string::npos ||
        ours->find("std::ostream") != std::string::npos || ours->find("std::iostream") != std::string::npos)
      continue;
    EXPECT_EQ(*ours, oracle) << mangled;
    ++compared;
  }
  EXPECT_GT(compared, 100);
}

TEST(Demangle, RustLegacyDropsTheHash) {
  EXPECT_EQ(symbols::demangle("_ZN4core3fmt5write17h0123456789abcdefE"), "core::fmt::write");
  EXPECT_EQ(symbols::demangle("_ZN70_$LT$alloc..vec..Vec$LT$T$C$A$GT$$u20$as$u20$core..ops..drop..Drop$GT$"
                              "4drop17h1a2b3c4d5e6f7a8bE"),
            "<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop");
  EXPECT_EQ(symbols::demangle("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h9e31c72cb54c2a1aE"),
            "std::rt::lang_start::{{closure}}");
  // Without the hash it is C++.
  EXPECT_EQ(symbols::demangle("_ZN4core3fmt5writeE"), "core::fmt::write");
}

TEST(Demangle, RustV0) {
  EXPECT_EQ(symbols::demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo");
  EXPECT_EQ(symbols::demangle("_RNvNtCs1234_7mycrate3bar3baz"), "mycrate::bar::baz");
  EXPECT_EQ(symbols::demangle("_RNCNvCs1234_7mycrate4main0B3_"), "mycrate::main::{closure#0}");
  EXPECT_EQ(symbols::demangle("_RINvCs1234_7mycrate3fooNtB2_3BarE"), "mycrate::foo::<mycrate::Bar>");
  EXPECT_EQ(symbols::demangle("_RNvMCs1234_7mycrateINtB2_3FoomE3new"), "<mycrate::Foo<u32>>::new");
  EXPECT_EQ(symbols::demangle("_RNvXCs1234_7mycrateNtB2_3FooNtNtCs5678_4core3fmt7Display3fmt"),
            "<mycrate::Foo as core::fmt::Display>::fmt");
  EXPECT_FALSE(symbols::demangle("_RNvB9999_3foo"));  // a backref past itself
  // From a rustc 1.95 binary (c++filt agrees, less its hashes): empty closure names ("0" is a
  // whole decimal number), dyn traits with binders and associated types, const generics.
  EXPECT_EQ(symbols::demangle("_RNCNCNCNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal00s_0B9_"),
            "std::rt::lang_start_internal::{closure#0}::{closure#0}::{closure#1}");
  EXPECT_EQ(symbols::demangle(
                "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDG0_"
                "INtNtNtB4_3ops8function2FnTRL1_INtNtCsjrHSEGnQ3l9_3std5panic13PanicHookInfoL0_EEEp6Outputu"
                "NtNtB4_6marker4SyncNtB2N_4SendEL_EEB1T_"),
            "core::ptr::drop_in_place::<alloc::boxed::Box<dyn for<'a, 'b> core::ops::function::Fn<(&'a "
            "std::panic::PanicHookInfo<'b>,), Output = ()> + core::marker::Sync + core::marker::Send>>");
  EXPECT_EQ(symbols::demangle(
                "_RINvNtCsgEmfK2I1SDS_4core6escape14escape_unicodeKja_ECsgY6Mt91CT9J_14rustc_demangle"),
            "core::escape::escape_unicode::<10>");
}
