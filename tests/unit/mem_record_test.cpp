// mem record's and c2c record's event lists from the PMUs sysfs lists (a fake tree): Intel's PEBS
// load latency, AMD's IBS, Arm's SPE, and the refusal naming what is missing.
#include "pipeline/mem_record.hpp"

#include <gtest/gtest.h>

#include "fake_pmu_root.hpp"

using sonde::pipeline::mem_record_arguments;
using sonde::pipeline::MemRecordRequest;
using sonde::pipeline::MemTool;

namespace {

class MemPmuTree : public FakePmuRoot {
 protected:
  void SetUp() override {
    FakePmuRoot::SetUp();
    write("software/type", "1\n");
  }
  std::string arguments(const MemRecordRequest& request) {
    auto args = mem_record_arguments(request);
    if (!args) return "error: " + args.error().message;
    std::string text;
    for (const auto& arg : *args) text += (text.empty() ? "" : " ") + arg;
    return text;
  }
};

}  // namespace

TEST_F(MemPmuTree, WithoutAMemorySamplingUnitTheRecordIsRefused) {
  std::string refusal = arguments({});
  EXPECT_NE(refusal.find("error: mem record samples memory accesses"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("PEBS load latency"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("IBS"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("SPE"), std::string::npos) << refusal;
  EXPECT_NE(arguments({.tool = MemTool::c2c}).find("error: c2c record samples"), std::string::npos);
  // A CPU PMU without the load-latency event is not enough.
  write("cpu/type", "4\n");
  EXPECT_EQ(arguments({}).rfind("error: ", 0), 0u);
}

TEST_F(MemPmuTree, IntelLoadLatency) {
  write("cpu/type", "4\n");
  write("cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
  write("cpu/events/mem-stores", "event=0xd0,umask=0x82\n");
  EXPECT_EQ(arguments({}), "record -W -d -e cpu/mem-loads,ldlat=30/P -e cpu/mem-stores/P");
  EXPECT_EQ(arguments({.stores = false, .ldlat = 50, .phys_data = true}),
            "record -W -d --phys-data -e cpu/mem-loads,ldlat=50/P");
  EXPECT_EQ(
      arguments({.tool = MemTool::c2c, .all_user = true}),
      "record -W -d --phys-data --sample-cpu -e cpu/mem-loads,ldlat=30/P -e cpu/mem-stores/P --all-user");
}

TEST_F(MemPmuTree, AmdIbsSamplesLoadsAndStoresWithOneEvent) {
  write("ibs_op/type", "11\n");
  EXPECT_EQ(arguments({}), "record -W -d -e ibs_op//");
  EXPECT_EQ(arguments({.loads = false}), "record -W -d -e ibs_op//");
}

TEST_F(MemPmuTree, ArmSpeFiltersLoadsAndStores) {
  write("arm_spe_0/type", "9\n");
  EXPECT_EQ(arguments({.data_page_size = true}),
            "record -W -d --data-page-size -e arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,store_filter=0,"
            "min_latency=30/ -e arm_spe_0/ts_enable=1,pa_enable=1,load_filter=0,store_filter=1/");
}
