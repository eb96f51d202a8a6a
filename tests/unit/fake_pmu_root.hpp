#pragma once
// A fixture that points the PMU sysfs reader at a fresh temporary tree the test fills.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "kernel/pmu_sysfs.hpp"

class FakePmuRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir_template[] = "/tmp/sonde-pmu-XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    root_ = dir_template;
    saved_ = sonde::kernel::pmu_sysfs_root();
    sonde::kernel::set_pmu_sysfs_root(root_);
  }
  void TearDown() override {
    sonde::kernel::set_pmu_sysfs_root(saved_);
    std::string command = "rm -rf '" + root_ + "'";
    ASSERT_EQ(std::system(command.c_str()), 0);
  }
  // Writes root/relative, making its directories.
  void write(const std::string& relative, const std::string& content) {
    std::string path = root_ + "/" + relative;
    for (size_t slash = path.find('/', root_.size() + 1); slash != std::string::npos;
         slash = path.find('/', slash + 1))
      mkdir(path.substr(0, slash).c_str(), 0755);
    std::ofstream(path) << content;
  }
  std::string root_;
  std::string saved_;
};
