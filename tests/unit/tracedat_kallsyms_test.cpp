// KernelFunctions against libtraceevent's own function map: for kallsyms text with the cases
// that matter (unsorted lines, equal addresses, modules, skipped symbol types, addresses before,
// between and after the functions), the same function and start for every address, and the
// same answers through a tep_handle whose resolver it is.
#include <gtest/gtest.h>
#include <traceevent/event-parse.h>

#include <string>
#include <vector>

#include "tracedat/kallsyms.hpp"

using sonde::tracedat::KernelFunctions;

namespace {

constexpr const char* kTracedatKallsyms =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T startup_64\n"
    "ffffffff81000100 t secondary\n"
    "ffffffff81000300 T first_func\n"
    "ffffffff81000200 t second_func\n"  // out of order, as module and init symbols can be
    "ffffffff81000300 W alias_of_first\n"
    "0000000000000000 A fixed_percpu_data\n"  // absolute: skipped
    "ffffffff81000400 t $x.0\n"               // mapping symbol: skipped
    "ffffffff81000500 T last_kernel_func\n"
    "ffffffffa0000000 t mod_func\t[loop]\n"
    "ffffffffa0000080 t mod_func2\t[loop]\n";

struct Found {
  std::string name;
  unsigned long long start = 0;
  bool operator==(const Found&) const = default;
};

Found lookup(tep_handle* tep, unsigned long long address) {
  const char* name = tep_find_function(tep, address);
  if (!name) return {};
  return {name, tep_find_function_address(tep, address)};
}

std::vector<unsigned long long> probes() {
  std::vector<unsigned long long> addresses = {0, 1, 0xffffffff80ffffffull, ~0ull};
  for (unsigned long long base : {0xffffffff81000000ull, 0xffffffffa0000000ull})
    for (unsigned long long offset = 0; offset < 0x700; offset += 0x40) {
      addresses.push_back(base + offset);
      addresses.push_back(base + offset + 1);
      addresses.push_back(base + offset - 1);
    }
  return addresses;
}

}  // namespace

TEST(TracedatKallsyms, FindsWhatLibtraceeventFinds) {
  tep_handle* registered = tep_alloc();
  std::string text = kTracedatKallsyms;
  ASSERT_EQ(tep_parse_kallsyms(registered, text.c_str()), 0);
  KernelFunctions functions(kTracedatKallsyms);
  tep_handle* resolved = tep_alloc();
  functions.install(resolved);
  EXPECT_EQ(functions.size(), 9u);
  int found = 0;
  for (unsigned long long address : probes()) {
    Found theirs = lookup(registered, address);
    Found ours;
    if (const auto* function = functions.find(address))
      ours = {std::string(functions.name(*function)), function->address};
    EXPECT_EQ(ours, theirs) << std::hex << address;
    EXPECT_EQ(lookup(resolved, address), theirs) << std::hex << address;
    found += !theirs.name.empty();
  }
  EXPECT_GT(found, 20);
  tep_free(resolved);
  tep_free(registered);
}

TEST(TracedatKallsyms, SymbolAddressesByName) {
  KernelFunctions functions(kTracedatKallsyms);
  EXPECT_EQ(functions.address_of("second_func"), 0xffffffff81000200ull);
  EXPECT_EQ(functions.address_of("mod_func2"), 0xffffffffa0000080ull);
  EXPECT_EQ(functions.address_of("fixed_percpu_data"), 0u);  // skipped, as libtraceevent skips it
  EXPECT_EQ(functions.address_of("no_such_symbol"), 0u);
}
