// perf stat's PMU-only options against fake PMU trees: each facility perf needs, present or not.
#include "pipeline/stat_pmu_requests.hpp"

#include <gtest/gtest.h>

#include "fake_pmu_root.hpp"

using namespace sonde;

namespace {

class FakePmuTree : public FakePmuRoot {
 protected:
  void SetUp() override {
    FakePmuRoot::SetUp();
    write("software/type", "1\n");
  }
  std::string refusal(const pipeline::PmuOnlyRequests& requests, bool system_wide = true) {
    auto checked = pipeline::check_pmu_only_requests(requests, system_wide);
    return checked ? "" : checked.error().message;
  }
};

}  // namespace

TEST_F(FakePmuTree, NothingRequestedIsFine) { EXPECT_EQ(refusal({}), ""); }

TEST_F(FakePmuTree, WithoutACpuPmuEachNamesTheMissingFacility) {
  EXPECT_NE(refusal({.metrics = "IPC"}).find("no CPU PMU"), std::string::npos);
  EXPECT_NE(refusal({.topdown = true}, false).find("add -a"), std::string::npos);
  EXPECT_NE(refusal({.topdown = true}).find("does not support top-down"), std::string::npos);
  EXPECT_NE(refusal({.smi_cost = true}).find("freeze_on_smi is not supported"), std::string::npos);
  EXPECT_NE(refusal({.transaction = true}).find("no TSX events"), std::string::npos);
  EXPECT_NE(refusal({.iostat = ""}).find("uncore IIO"), std::string::npos);
  EXPECT_NE(refusal({.cputype = "core"}).find("hybrid CPUs"), std::string::npos);
  EXPECT_NE(refusal({.percore_show_thread = true}).find("no CPU PMU"), std::string::npos);
}

TEST_F(FakePmuTree, WithTheFacilitiesSondeSaysWhatItLacks) {
  write("cpu/type", "4\n");
  write("cpu/events/slots", "event=0x00,umask=0x4\n");
  write("cpu/events/tx-start", "event=0xc9,umask=0x1\n");
  write("cpu/freeze_on_smi", "0\n");
  write("uncore_iio_0/type", "30\n");
  EXPECT_NE(refusal({.metrics = "IPC"}).find("no per-CPU-model metric tables yet"), std::string::npos);
  EXPECT_NE(refusal({.topdown = true}).find("no top-down metric tables yet"), std::string::npos);
  EXPECT_NE(refusal({.smi_cost = true}).find("does not measure SMI cost yet"), std::string::npos);
  EXPECT_NE(refusal({.transaction = true}).find("transaction statistics yet"), std::string::npos);
  EXPECT_NE(refusal({.iostat = ""}).find("uncore IIO PMUs yet"), std::string::npos);
}

TEST_F(FakePmuTree, HybridCputype) {
  write("cpu_core/type", "4\n");
  write("cpu_atom/type", "8\n");
  EXPECT_NE(refusal({.cputype = "atom"}).find("-e cpu_atom/cycles/"), std::string::npos);
  EXPECT_NE(refusal({.cputype = "big"}).find("--cputype big is not supported"), std::string::npos);
}

TEST_F(FakePmuTree, TdLevelRange) {
  EXPECT_EQ(refusal({.td_level = 2}), "");
  EXPECT_NE(refusal({.td_level = 3}).find("0, 1 or 2"), std::string::npos);
}
