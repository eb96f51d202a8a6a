#include <gtest/gtest.h>

#include <vector>

#include "session/address_space.hpp"
#include "session/machine.hpp"
#include "session/ordered_records.hpp"

using namespace sonde::session;

namespace {
Map make_map(uint64_t start, uint64_t end, uint64_t pgoff, Dso* dso) {
  return Map{.start = start, .end = end, .pgoff = pgoff, .dso = dso, .prot = 5, .flags = 0};
}
}  // namespace

TEST(SessionAddressSpace, NewMapSplitsTheOneItOverlaps) {
  DsoTable dsos;
  Dso& a = dsos.intern("/a", DsoKind::user);
  Dso& b = dsos.intern("/b", DsoKind::user);
  AddressSpace space;
  space.insert(make_map(0x1000, 0x5000, 0, &a));
  space.insert(make_map(0x2000, 0x3000, 0x10, &b));
  ASSERT_EQ(space.maps().size(), 3u);
  EXPECT_EQ(space.find(0x1fff)->dso, &a);
  EXPECT_EQ(space.find(0x2000)->dso, &b);
  EXPECT_EQ(space.find(0x3000)->dso, &a);
  // The tail keeps its file offset: 0x3000 is 0x2000 bytes into /a.
  EXPECT_EQ(space.find(0x3000)->dso_address(0x3000), 0x2000u);
  EXPECT_EQ(space.find(0x2010)->dso_address(0x2010), 0x20u);
  EXPECT_EQ(space.find(0x5000), nullptr);
  EXPECT_EQ(space.find(0xfff), nullptr);
}

TEST(SessionAddressSpace, MapCoveringSeveralReplacesThem) {
  DsoTable dsos;
  Dso& a = dsos.intern("/a", DsoKind::user);
  Dso& b = dsos.intern("/b", DsoKind::user);
  AddressSpace space;
  space.insert(make_map(0x1000, 0x2000, 0, &a));
  space.insert(make_map(0x3000, 0x4000, 0, &a));
  space.insert(make_map(0x0, 0x10000, 0, &b));
  ASSERT_EQ(space.maps().size(), 1u);
  EXPECT_EQ(space.find(0x3500)->dso, &b);
}

TEST(SessionMachine, ThreadsShareMapsForkCopiesExecKeeps) {
  Machine machine;
  machine.apply_mmap(100, 100, 0x400000, 0x1000, 0, "/bin/app", 5, 0, PERF_RECORD_MISC_USER, "");
  machine.apply_fork({.pid = 100, .ppid = 100, .tid = 101, .ptid = 100, .time = 0});  // a thread
  machine.apply_fork({.pid = 200, .ppid = 100, .tid = 200, .ptid = 100, .time = 0});  // a child process
  const Thread& thread = machine.thread(100, 101);
  const Thread& child = machine.thread(200, 200);
  EXPECT_EQ(thread.maps, machine.thread(100, 100).maps);
  EXPECT_NE(child.maps, thread.maps);
  EXPECT_EQ(machine.locate(child, PERF_RECORD_MISC_USER, 0x400010).dso->long_name, "/bin/app");
  machine.apply_comm({.pid = 200, .tid = 200, .comm = "other", .exec = true});
  // As perf: exec keeps the old maps until the new image's maps cover them.
  EXPECT_EQ(machine.locate(machine.thread(200, 200), PERF_RECORD_MISC_USER, 0x400010).dso->long_name,
            "/bin/app");
  machine.apply_mmap(200, 200, 0x400000, 0x1000, 0, "/bin/other", 5, 0, PERF_RECORD_MISC_USER, "");
  EXPECT_EQ(machine.locate(machine.thread(200, 200), PERF_RECORD_MISC_USER, 0x400010).dso->long_name,
            "/bin/other");
  EXPECT_EQ(machine.thread(200, 200).comm, "other");
  EXPECT_EQ(machine.thread(300, 300).comm, ":300");
  // Anonymous executable memory belongs to the process's JIT map file.
  machine.apply_mmap(100, 100, 0x7000000, 0x1000, 0, "//anon", 5, 0, PERF_RECORD_MISC_USER, "");
  Location jit = machine.locate(thread, PERF_RECORD_MISC_USER, 0x7000010);
  ASSERT_NE(jit.dso, nullptr);
  EXPECT_EQ(jit.dso->long_name, "/tmp/perf-100.map");
  EXPECT_EQ(jit.dso_address, 0x7000010u);
}

TEST(SessionMachine, KernelModulesBeforeTheOpenEndedKernelMap) {
  Machine machine;
  machine.apply_mmap(-1, 0, 0xffffffff81000000, UINT64_MAX - 0xffffffff81000000, 0xffffffff81000000,
                     "[kernel.kallsyms]_text", 5, 0, PERF_RECORD_MISC_KERNEL, "");
  machine.apply_mmap(-1, 0, 0xffffffffc0000000, 0x10000, 0, "/lib/modules/6.1/kernel/fs/ext4-x.ko", 5, 0,
                     PERF_RECORD_MISC_KERNEL, "");
  const Thread& idle = machine.thread(0, 0);
  Location module = machine.locate(idle, PERF_RECORD_MISC_KERNEL, 0xffffffffc0000100);
  ASSERT_NE(module.dso, nullptr);
  EXPECT_EQ(module.dso->short_name, "[ext4_x]");
  EXPECT_EQ(module.dso_address, 0xffffffffc0000100u);
  Location image = machine.locate(idle, PERF_RECORD_MISC_KERNEL, 0xffffffff81000100);
  EXPECT_EQ(image.dso->long_name, "[kernel.kallsyms]");
  EXPECT_EQ(idle.comm, "swapper");
}

TEST(SessionOrderedRecords, RoundsFlushUpToThePreviousRoundsMaximum) {
  std::vector<std::vector<uint8_t>> storage;
  auto record = [&](uint8_t tag) {
    storage.push_back(std::vector<uint8_t>(16, tag));
    sonde::perfdata::RecordView view;
    view.header.size = 16;
    view.bytes = sonde::Bytes(storage.back().data(), 16);
    return view;
  };
  storage.reserve(16);
  OrderedRecords ordered;
  std::vector<uint8_t> delivered;
  auto deliver = [&](const sonde::perfdata::RecordView& r) { delivered.push_back(r.bytes[8]); };
  ordered.push(record(3), 30);
  ordered.push(record(1), 10);
  ordered.finished_round(deliver);  // nothing yet: the limit is the previous round's maximum
  EXPECT_TRUE(delivered.empty());
  ordered.push(record(2), 20);  // late for CPU order, but before the limit
  ordered.push(record(5), 50);
  ordered.finished_round(deliver);  // up to 30
  EXPECT_EQ(delivered, (std::vector<uint8_t>{1, 2, 3}));
  ordered.push(record(4), 40);
  ordered.flush_all(deliver);
  EXPECT_EQ(delivered, (std::vector<uint8_t>{1, 2, 3, 4, 5}));
}
