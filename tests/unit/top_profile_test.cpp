// sonde top's live histogram: samples folded as they come, perf top's ageing between screens
// (7/8 of each period and count, floor, an entry at 0 dropped; -z; -K/-U), and perf's idle
// functions left out.
#include "analysis/top/top_profile.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <map>
#include <string>

using namespace sonde;
using namespace sonde::analysis;

namespace {

class NamedAddresses : public FrameResolver {
 public:
  std::optional<Symbol> symbol(const session::Dso& dso, uint64_t address) override {
    static const std::map<uint64_t, std::string> user = {{0x1000, "hot"}, {0x2000, "cold"}};
    static const std::map<uint64_t, std::string> kernel = {{0xffffffff81000100, "do_syscall_64"},
                                                           {0xffffffff81000200, "default_idle"}};
    const auto& names = dso.is_kernel() ? kernel : user;
    auto it = names.find(address);
    if (it == names.end()) return std::nullopt;
    return Symbol{address, it->second};
  }
  std::string srcline(const session::Dso&, uint64_t) override { return ""; }
};

class TopProfileTest : public ::testing::Test {
 protected:
  TopProfileTest() : profile_(resolver_, {SortKey::dso, SortKey::sym}) {
    machine_.apply_mmap(-1, 0, 0xffffffff81000000, 0x1000000, 0xffffffff81000000, "[kernel.kallsyms]_text", 5,
                        0, PERF_RECORD_MISC_KERNEL, "");
    machine_.apply_mmap(7, 7, 0x400000, 0x10000, 0, "/bin/w", 5, 0, PERF_RECORD_MISC_USER, "");
    options_.keys = {SortKey::dso, SortKey::sym};
  }
  bool add(uint64_t ip, uint64_t period, uint8_t cpumode = PERF_RECORD_MISC_USER) {
    perfdata::Sample sample;
    sample.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
    sample.ip = ip;
    sample.pid = sample.tid = 7;
    sample.period = period;
    return profile_.add(machine_, machine_.thread(7, 7), sample, cpumode, period);
  }
  // Each entry as "name period samples", in perf's order.
  std::vector<std::string> entries() {
    profile_.build(options_);
    std::vector<std::string> text;
    Histogram& histogram = profile_.histogram();
    for (uint32_t id : histogram.order()) {
      const HistEntry& entry = histogram.entries()[id];
      const auto& tables = profile_.tables();
      const Function& function =
          tables.locations.function(tables.locations.location(entry.location).function);
      text.push_back(function.name + " " + std::to_string(entry.self_period) + " " +
                     std::to_string(entry.self_samples));
    }
    return text;
  }

  NamedAddresses resolver_;
  session::Machine machine_;
  TopProfile profile_;
  HistOptions options_;
};

TEST_F(TopProfileTest, AgesEachEntryToSevenEighthsAndDropsWhatReachesZero) {
  for (int i = 0; i < 8; ++i) add(0x401000, 1000);
  add(0x402000, 1);
  EXPECT_EQ(entries(), (std::vector<std::string>{"hot 8000 8", "cold 1 1"}));
  profile_.age(false, false, false);
  // floor(8000 * 7/8), floor(8 * 7/8); cold's 1 becomes 0 and is gone.
  EXPECT_EQ(entries(), (std::vector<std::string>{"hot 7000 7"}));
  EXPECT_EQ(profile_.histogram().total_period(), 7000u);
  add(0x402000, 500);  // new samples come in whole after the ageing
  EXPECT_EQ(entries(), (std::vector<std::string>{"hot 7000 7", "cold 500 1"}));
  profile_.age(false, false, false);
  EXPECT_EQ(entries(), (std::vector<std::string>{"hot 6125 6", "cold 437 0"}));
}

TEST_F(TopProfileTest, ZeroingKeepsOnlyWhatCameSinceTheLastScreen) {
  add(0x401000, 1000);
  EXPECT_EQ(entries().size(), 1u);
  profile_.age(true, false, false);
  EXPECT_TRUE(entries().empty());
  EXPECT_EQ(profile_.histogram().total_period(), 0u);
  add(0x402000, 3);
  EXPECT_EQ(entries(), (std::vector<std::string>{"cold 3 1"}));
}

TEST_F(TopProfileTest, HidingDropsTheKernelsOrUserSpacesEntries) {
  add(0x401000, 10);
  add(0xffffffff81000100, 20, PERF_RECORD_MISC_KERNEL);
  EXPECT_EQ(entries(), (std::vector<std::string>{"do_syscall_64 20 1", "hot 10 1"}));
  profile_.age(false, false, true);  // -K
  EXPECT_EQ(entries(), (std::vector<std::string>{"hot 8 0"}));
  add(0xffffffff81000100, 20, PERF_RECORD_MISC_KERNEL);
  entries();
  profile_.age(false, true, false);  // -U
  EXPECT_EQ(entries(), (std::vector<std::string>{"do_syscall_64 17 0"}));
}

TEST_F(TopProfileTest, IdleFunctionsAreLeftOut) {
  EXPECT_FALSE(add(0xffffffff81000200, 100, PERF_RECORD_MISC_KERNEL));
  EXPECT_TRUE(add(0xffffffff81000100, 100, PERF_RECORD_MISC_KERNEL));
  EXPECT_EQ(entries(), (std::vector<std::string>{"do_syscall_64 100 1"}));
  EXPECT_EQ(profile_.histogram().total_period(), 100u);
}

}  // namespace
