// perf's own fact records (CPU and thread maps, id index, event updates) decoded from bytes laid
// out as perf 6.1 writes them, and perf's CPU list text.
#include "perfdata/perf_records.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "base/bytes.hpp"
#include "format/perf_format.hpp"

using namespace sonde;
using namespace sonde::perfdata;

namespace {

// A record of `type` around `body`, its header filled in; the bytes live in `storage`.
RecordView make_record(uint32_t type, const std::string& body, std::string& storage) {
  perf_event_header header{type, 0, static_cast<uint16_t>(sizeof(perf_event_header) + body.size())};
  storage.assign(reinterpret_cast<const char*>(&header), sizeof header);
  storage += body;
  RecordView view;
  view.header = header;
  view.bytes = Bytes(reinterpret_cast<const uint8_t*>(storage.data()), storage.size());
  return view;
}

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

}  // namespace

TEST(PerfRecords, CpuMapInEachEncoding) {
  std::string storage, list, mask, range;
  put<uint16_t>(list, 0);  // a list of CPUs; 0xffff is "any"
  put<uint16_t>(list, 3);
  put<uint16_t>(list, 0xffff);
  put<uint16_t>(list, 2);
  put<uint16_t>(list, 3);
  auto from_list = CpuMapRecord::decode(make_record(PERF_RECORD_CPU_MAP, list, storage));
  ASSERT_TRUE(from_list) << from_list.error().message;
  EXPECT_EQ(from_list->cpus, (std::vector<int32_t>{-1, 2, 3}));

  put<uint16_t>(mask, 1);  // a mask of 64-bit words after four bytes of padding
  put<uint16_t>(mask, 1);
  put<uint16_t>(mask, 8);
  put<uint32_t>(mask, 0);
  put<uint64_t>(mask, 0b1011);
  auto from_mask = CpuMapRecord::decode(make_record(PERF_RECORD_CPU_MAP, mask, storage));
  ASSERT_TRUE(from_mask) << from_mask.error().message;
  EXPECT_EQ(from_mask->cpus, (std::vector<int32_t>{0, 1, 3}));

  put<uint16_t>(range, 2);  // a range, with "any" first when asked
  put<uint8_t>(range, 1);
  put<uint8_t>(range, 0);
  put<uint16_t>(range, 4);
  put<uint16_t>(range, 6);
  auto from_range = CpuMapRecord::decode(make_record(PERF_RECORD_CPU_MAP, range, storage));
  ASSERT_TRUE(from_range) << from_range.error().message;
  EXPECT_EQ(from_range->cpus, (std::vector<int32_t>{-1, 4, 5, 6}));
}

TEST(PerfRecords, TruncatedMapsAreErrorsNotReads) {
  std::string storage, list;
  put<uint16_t>(list, 0);
  put<uint16_t>(list, 1000);  // claims far more CPUs than the record holds
  EXPECT_FALSE(CpuMapRecord::decode(make_record(PERF_RECORD_CPU_MAP, list, storage)));
  std::string threads;
  put<uint64_t>(threads, 5);
  EXPECT_FALSE(ThreadMapRecord::decode(make_record(PERF_RECORD_THREAD_MAP, threads, storage)));
  std::string index;
  put<uint64_t>(index, 1u << 30);
  EXPECT_FALSE(IdIndexRecord::decode(make_record(PERF_RECORD_ID_INDEX, index, storage)));
}

TEST(PerfRecords, ThreadMapAndIdIndex) {
  std::string storage, threads;
  put<uint64_t>(threads, 2);
  for (uint64_t pid : {1212u, 1213u}) {
    put<uint64_t>(threads, pid);
    threads.append(16, '\0');
  }
  auto map = ThreadMapRecord::decode(make_record(PERF_RECORD_THREAD_MAP, threads, storage));
  ASSERT_TRUE(map);
  EXPECT_EQ(map->pids, (std::vector<int32_t>{1212, 1213}));

  std::string index;
  put<uint64_t>(index, 1);
  for (uint64_t v : {263372ull, 0ull, 1ull, 1212ull}) put<uint64_t>(index, v);
  auto ids = IdIndexRecord::decode(make_record(PERF_RECORD_ID_INDEX, index, storage));
  ASSERT_TRUE(ids);
  ASSERT_EQ(ids->entries.size(), 1u);
  EXPECT_EQ(ids->entries[0].id, 263372u);
  EXPECT_EQ(ids->entries[0].cpu, 1);
  EXPECT_EQ(ids->entries[0].tid, 1212);
  EXPECT_FALSE(ids->entries[0].has_machine);
}

TEST(PerfRecords, EventUpdateName) {
  std::string storage, body;
  put<uint64_t>(body, EventUpdateRecord::kName);
  put<uint64_t>(body, 42);
  body += std::string("sched:sched_switch\0\0\0\0\0\0", 24);
  auto update = EventUpdateRecord::decode(make_record(PERF_RECORD_EVENT_UPDATE, body, storage));
  ASSERT_TRUE(update);
  EXPECT_EQ(update->id, 42u);
  EXPECT_EQ(update->text, "sched:sched_switch");
}

TEST(PerfRecords, CpuListTextJoinsRuns) {
  EXPECT_EQ(cpu_list_text({0, 1}), "0-1");
  EXPECT_EQ(cpu_list_text({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(cpu_list_text({3}), "3");
  EXPECT_EQ(cpu_list_text({-1, 0, 1}), "-1-1");  // perf's own rendering of "any" before a run
}
