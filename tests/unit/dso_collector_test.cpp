// capture/record_sideband's DsoCollector: the DSOs samples hit, through forks, execs and exits,
// and an exited process's maps forgotten only long after its EXIT record (a sample of it from
// another CPU's buffer may still come), never those of a new process that reuses its pid.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "capture/record_sideband.hpp"

using namespace sonde;
using namespace sonde::capture;

namespace {

constexpr uint64_t kSampleType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID;

class Records {
 public:
  explicit Records(DsoCollector& collector) : collector_(collector) {}

  void mmap2(uint32_t pid, uint64_t start, uint64_t length, const std::string& file) {
    std::vector<uint8_t> r(72 + (file.size() + 8) / 8 * 8, 0);
    put<uint32_t>(r, 8, pid);
    put<uint32_t>(r, 12, pid);
    put<uint64_t>(r, 16, start);
    put<uint64_t>(r, 24, length);
    std::memcpy(r.data() + 72, file.data(), file.size());
    send(PERF_RECORD_MMAP2, 0, r);
  }
  void fork(uint32_t pid, uint32_t ppid) { task(PERF_RECORD_FORK, pid, ppid); }
  void exit(uint32_t pid) { task(PERF_RECORD_EXIT, pid, 1); }
  void sample(uint32_t pid, uint64_t ip) {
    std::vector<uint8_t> r(32, 0);
    put<uint64_t>(r, 16, ip);
    put<uint32_t>(r, 24, pid);
    put<uint32_t>(r, 28, pid);
    send(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, r);
  }

 private:
  template <typename T>
  static void put(std::vector<uint8_t>& r, size_t at, T value) {
    std::memcpy(r.data() + at, &value, sizeof value);
  }
  void task(uint32_t type, uint32_t pid, uint32_t ppid) {
    std::vector<uint8_t> r(32, 0);
    put<uint32_t>(r, 8, pid);
    put<uint32_t>(r, 12, ppid);
    put<uint32_t>(r, 16, pid);
    put<uint32_t>(r, 20, ppid);
    send(type, 0, r);
  }
  void send(uint32_t type, uint16_t misc, std::vector<uint8_t>& r) {
    perf_event_header header{type, misc, static_cast<uint16_t>(r.size())};
    std::memcpy(r.data(), &header, sizeof header);
    collector_.observe(r.data(), r.size());
  }
  DsoCollector& collector_;
};

std::vector<std::string> hit(const DsoCollector& collector) {
  std::vector<std::string> files;
  for (const auto& dso : collector.dsos()) files.push_back(dso.name);
  return files;
}

// Enough other processes exiting that a process which exited before them is forgotten.
void many_exits(Records& records) {
  for (uint32_t pid = 20000; pid < 30000; ++pid) records.exit(pid);
}

}  // namespace

TEST(DsoCollector, MarksTheFileUnderEachSampleThroughForks) {
  DsoCollector collector(kSampleType);
  Records records(collector);
  records.mmap2(100, 0x400000, 0x1000, "/bin/app");
  records.mmap2(100, 0x7f0000, 0x1000, "/lib/libc.so.6");
  records.fork(101, 100);
  records.sample(101, 0x7f0010);
  records.sample(100, 0x500000);  // outside every map
  EXPECT_EQ(hit(collector), std::vector<std::string>{"/lib/libc.so.6"});
}

TEST(DsoCollector, ASampleJustAfterItsProcessExitedStillCounts) {
  DsoCollector collector(kSampleType);
  Records records(collector);
  records.mmap2(100, 0x400000, 0x1000, "/bin/app");
  records.exit(100);
  records.sample(100, 0x400010);
  EXPECT_EQ(hit(collector), std::vector<std::string>{"/bin/app"});
}

TEST(DsoCollector, ForgetsAProcessLongGone) {
  DsoCollector collector(kSampleType);
  Records records(collector);
  records.mmap2(100, 0x400000, 0x1000, "/bin/gone");
  records.exit(100);
  many_exits(records);
  records.sample(100, 0x400010);
  EXPECT_TRUE(hit(collector).empty());
}

TEST(DsoCollector, KeepsANewProcessThatReusesAnExitedPid) {
  DsoCollector collector(kSampleType);
  Records records(collector);
  records.mmap2(50, 0x400000, 0x1000, "/bin/parent");
  records.mmap2(100, 0x400000, 0x1000, "/bin/gone");
  records.exit(100);
  records.fork(100, 50);  // pid 100 again, a child of 50 with its maps
  many_exits(records);
  records.sample(100, 0x400010);
  EXPECT_EQ(hit(collector), std::vector<std::string>{"/bin/parent"});
}
