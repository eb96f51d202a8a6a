// capture/sideband: the records synthesized for a sleeping child, for this (two-threaded)
// process as -p and -t see it, for -a, and for the kernel; decoded back with perfdata's views.
#include "capture/sideband.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "base/file.hpp"
#include "format/sample.hpp"
#include "perfdata/kernel_records.hpp"

using namespace sonde;
using namespace sonde::capture;
using namespace sonde::perfdata;

namespace {

// The attr perf record -a uses for cpu-clock: its sample_id trailer has TID, TIME, CPU, IDENTIFIER.
perf_event_attr cpu_clock_attr() {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.size = sizeof attr;
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                     PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER;
  attr.sample_id_all = attr.mmap = attr.mmap2 = attr.comm = attr.task = 1;
  return attr;
}

std::vector<RecordView> records_of(const std::string& buffer) {
  std::vector<RecordView> records;
  const auto* bytes = reinterpret_cast<const uint8_t*>(buffer.data());
  for (size_t at = 0; at + sizeof(perf_event_header) <= buffer.size();) {
    RecordView view;
    std::memcpy(&view.header, bytes + at, sizeof view.header);
    if (view.header.size < sizeof(perf_event_header) || at + view.header.size > buffer.size()) break;
    view.bytes = Bytes(bytes + at, view.header.size);
    view.offset = at;
    records.push_back(view);
    at += view.header.size;
  }
  EXPECT_EQ(records.empty() ? 0 : records.back().offset + records.back().header.size, buffer.size());
  return records;
}

// Every synthesized record carries perf's all-zero trailer.
void expect_zero_trailer(const RecordView& record, const perf_event_attr& attr) {
  auto id = decode_sample_id(record, attr);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_TRUE(id->present);
  EXPECT_EQ(id->pid, 0u);
  EXPECT_EQ(id->tid, 0u);
  EXPECT_EQ(id->time, 0u);
  EXPECT_EQ(id->cpu, 0u);
  EXPECT_EQ(id->id, 0u);
}

// A child running `sleep 30`, killed at the end of the test.
class SleepingChild {
 public:
  SleepingChild() {
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Wait for sleep to be asleep: the comm changes at exec, before ld.so has mapped libc, so
    // the maps settle only once it sleeps with libc mapped (a loaded machine stretches that).
    std::string proc = "/proc/" + std::to_string(pid_);
    for (int i = 0; i < 5000; ++i) {
      auto comm = read_file(proc + "/comm");
      auto maps = read_file(proc + "/maps");
      auto stat = read_file(proc + "/stat");
      bool asleep = stat && stat->find(") S ") != std::string::npos;
      if (comm && *comm == "sleep\n" && maps && maps->find("libc.so") != std::string::npos && asleep) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  ~SleepingChild() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

// A second thread in this process, parked until the test ends.
class ParkedThread {
 public:
  ParkedThread()
      : thread_([this] {
          std::unique_lock lock(mutex_);
          tid_ = ::gettid();
          ready_.notify_all();
          ready_.wait(lock, [this] { return done_; });
        }) {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return tid_ != 0; });
  }
  ~ParkedThread() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    ready_.notify_all();
    thread_.join();
  }
  pid_t tid() const { return tid_; }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  pid_t tid_ = 0;
  bool done_ = false;
  std::thread thread_;
};

std::string exe_path() {
  char exe[4096] = {};
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  return n > 0 ? std::string(exe, static_cast<size_t>(n)) : "";
}

}  // namespace

TEST(Sideband, ParsesProcMapsLines) {
  auto maps = parse_proc_maps(
      "55f48e4b5000-55f48e576000 r-xp 0002f000 fe:00 247101                     /usr/bin/bash\n"
      "7fafacba5000-7fafacc78000 r-xp 0000a000 00:01 24                         /memfd:sealed-91 (deleted)\n"
      "7ffd5a1e4000-7ffd5a205000 rw-p 00000000 00:00 0                          [stack]\n"
      "7f0000000000-7f0000001000 rwxs 00000000 00:00 0 \n"
      "not a maps line\n"
      "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]");
  ASSERT_EQ(maps.size(), 5u);
  EXPECT_EQ(maps[0].start, 0x55f48e4b5000u);
  EXPECT_EQ(maps[0].end, 0x55f48e576000u);
  EXPECT_EQ(maps[0].pgoff, 0x2f000u);
  EXPECT_EQ(maps[0].maj, 0xfeu);
  EXPECT_EQ(maps[0].min, 0u);
  EXPECT_EQ(maps[0].ino, 247101u);
  EXPECT_EQ(maps[0].perms, "r-xp");
  EXPECT_EQ(maps[0].name, "/usr/bin/bash");
  EXPECT_EQ(maps[1].name, "/memfd:sealed-91 (deleted)");
  EXPECT_EQ(maps[2].name, "[stack]");
  EXPECT_EQ(maps[3].name, "");
  EXPECT_EQ(maps[3].perms, "rwxs");
  EXPECT_EQ(maps[4].name, "[vsyscall]");
}

TEST(Sideband, SleepingChildGetsCommAndExecutableMaps) {
  SleepingChild child;
  const uint32_t pid = static_cast<uint32_t>(child.pid());
  perf_event_attr attr = cpu_clock_attr();
  std::string out;
  pid_t tids[] = {child.pid()};
  ASSERT_TRUE(synthesize_threads(attr, tids, {}, append_to(out)));
  auto records = records_of(out);
  ASSERT_GE(records.size(), 3u);

  ASSERT_EQ(records[0].type(), PERF_RECORD_COMM);
  auto comm = CommRecord::decode(records[0]);
  ASSERT_TRUE(comm);
  EXPECT_EQ(comm->pid, pid);
  EXPECT_EQ(comm->tid, pid);
  EXPECT_EQ(comm->comm, "sleep");
  EXPECT_FALSE(comm->exec);
  expect_zero_trailer(records[0], attr);

  // Executable maps only: sleep's text, libc, ld.so, [vdso] (and [vsyscall] where the kernel has it).
  std::string maps = *read_file("/proc/" + std::to_string(pid) + "/maps");
  size_t expected = 0;
  for (const auto& map : parse_proc_maps(maps)) expected += map.perms[2] == 'x';
  ASSERT_EQ(records.size(), 1 + expected);
  bool saw_sleep = false, saw_vdso = false;
  for (size_t i = 1; i < records.size(); ++i) {
    ASSERT_EQ(records[i].type(), PERF_RECORD_MMAP2);
    EXPECT_EQ(records[i].misc(), PERF_RECORD_MISC_USER);
    auto m = Mmap2Record::decode(records[i]);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->pid, pid);
    EXPECT_EQ(m->tid, pid);
    EXPECT_TRUE(m->prot & PROT_EXEC);
    EXPECT_EQ(m->flags, static_cast<uint32_t>(MAP_PRIVATE));
    expect_zero_trailer(records[i], attr);
    if (m->filename == "/usr/bin/sleep") {
      saw_sleep = true;
      EXPECT_EQ(m->prot, static_cast<uint32_t>(PROT_READ | PROT_EXEC));
      EXPECT_NE(m->ino, 0u);
      EXPECT_NE(m->maj + m->min, 0u);
      EXPECT_GT(m->len, 0u);
    }
    if (m->filename == "[vdso]") {
      saw_vdso = true;
      EXPECT_EQ(m->ino, 0u);
    }
  }
  EXPECT_TRUE(saw_sleep);
  EXPECT_TRUE(saw_vdso);

  // The workload case: COMM only.
  std::string comm_only;
  ASSERT_TRUE(synthesize_threads(attr, tids, {.mmaps = false}, append_to(comm_only)));
  ASSERT_EQ(records_of(comm_only).size(), 1u);
}

TEST(Sideband, ThreadsAsPerfPAndPerfTSeeThem) {
  ParkedThread thread;
  perf_event_attr attr = cpu_clock_attr();
  const pid_t pid = ::getpid();
  auto tids = list_threads(pid);
  ASSERT_TRUE(tids);
  ASSERT_GE(tids->size(), 2u);
  EXPECT_EQ(tids->front(), pid);
  EXPECT_NE(std::find(tids->begin(), tids->end(), thread.tid()), tids->end());
  EXPECT_FALSE(list_threads(999999999));

  // -p: COMM(pid/pid), the process's MMAP2s, then COMM(pid/tid) for the other threads.
  std::string out;
  ASSERT_TRUE(synthesize_threads(attr, *tids, {}, append_to(out)));
  auto records = records_of(out);
  size_t comms = 0, mmaps = 0;
  bool saw_thread = false, saw_exe = false;
  for (const auto& record : records) {
    if (record.type() == PERF_RECORD_COMM) {
      auto comm = CommRecord::decode(record);
      ASSERT_TRUE(comm);
      EXPECT_EQ(comm->pid, static_cast<uint32_t>(pid));
      EXPECT_EQ(mmaps == 0, comms == 0) << "MMAP2s come right after the leader's COMM";
      saw_thread |= comm->tid == static_cast<uint32_t>(thread.tid());
      ++comms;
    } else {
      ASSERT_EQ(record.type(), PERF_RECORD_MMAP2);
      saw_exe |= Mmap2Record::decode(record)->filename == exe_path();
      ++mmaps;
    }
  }
  EXPECT_EQ(comms, tids->size());
  EXPECT_TRUE(saw_thread);
  EXPECT_TRUE(saw_exe);

  // -t TID of a non-leader: its COMM, then the leader's COMM and MMAP2s come along.
  std::string only_thread;
  pid_t one[] = {thread.tid()};
  ASSERT_TRUE(synthesize_threads(attr, one, {}, append_to(only_thread)));
  auto t_records = records_of(only_thread);
  ASSERT_GE(t_records.size(), 3u);
  EXPECT_EQ(CommRecord::decode(t_records[0])->tid, static_cast<uint32_t>(thread.tid()));
  EXPECT_EQ(CommRecord::decode(t_records[1])->tid, static_cast<uint32_t>(pid));
  EXPECT_EQ(t_records[2].type(), PERF_RECORD_MMAP2);
}

TEST(Sideband, DataMmapsAndAnonymousCode) {
  // An anonymous executable mapping (what a JIT makes) is named //anon, as perf names it.
  void* code = ::mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(code, MAP_FAILED);
  perf_event_attr attr = cpu_clock_attr();
  std::string exec_only, with_data;
  ASSERT_TRUE(synthesize_mmaps(attr, ::getpid(), {}, append_to(exec_only)));
  ASSERT_TRUE(synthesize_mmaps(attr, ::getpid(), {.data_mmaps = true}, append_to(with_data)));
  bool saw_anon = false, saw_data = false;
  for (const auto& record : records_of(exec_only)) {
    auto m = Mmap2Record::decode(record);
    if (m->addr == reinterpret_cast<uint64_t>(code)) {
      saw_anon = true;
      EXPECT_EQ(m->filename, "//anon");
    }
  }
  auto data_records = records_of(with_data);
  EXPECT_GT(data_records.size(), records_of(exec_only).size());
  for (const auto& record : data_records) {
    auto m = Mmap2Record::decode(record);
    if (record.misc() & PERF_RECORD_MISC_MMAP_DATA) {
      saw_data = true;
      EXPECT_FALSE(m->prot & PROT_EXEC);
      EXPECT_TRUE(m->prot & PROT_READ);
    }
  }
  EXPECT_TRUE(saw_anon);
  EXPECT_TRUE(saw_data);
  ::munmap(code, 4096);
}

TEST(Sideband, AllTasksGetForkAndComm) {
  ParkedThread thread;
  perf_event_attr attr = cpu_clock_attr();
  std::string out;
  ASSERT_TRUE(synthesize_all_tasks(attr, {}, append_to(out)));
  const uint32_t pid = static_cast<uint32_t>(::getpid()), tid = static_cast<uint32_t>(thread.tid());
  const uint32_t ppid = static_cast<uint32_t>(::getppid());
  bool saw_init = false, saw_self = false, saw_thread = false, saw_own_map = false, kthread_map = false;
  uint32_t last_fork_pid = 0;
  auto records = records_of(out);
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& record = records[i];
    expect_zero_trailer(record, attr);
    if (record.type() == PERF_RECORD_FORK) {
      EXPECT_EQ(record.misc(), PERF_RECORD_MISC_FORK_EXEC);
      auto fork = ForkExitRecord::decode(record);
      ASSERT_TRUE(fork);
      EXPECT_GE(fork->pid, last_fork_pid) << "processes in pid order";
      last_fork_pid = fork->pid;
      saw_init |= fork->pid == 1 && fork->tid == 1 && fork->ppid == 0;
      saw_self |= fork->pid == pid && fork->tid == pid && fork->ppid == ppid && fork->ptid == ppid;
      saw_thread |= fork->pid == pid && fork->tid == tid && fork->ppid == pid && fork->ptid == pid;
      // Each FORK is followed by the same task's COMM.
      ASSERT_LT(i + 1, records.size());
      ASSERT_EQ(records[i + 1].type(), PERF_RECORD_COMM);
      auto comm = CommRecord::decode(records[i + 1]);
      EXPECT_EQ(comm->pid, fork->pid);
      EXPECT_EQ(comm->tid, fork->tid);
    } else if (record.type() == PERF_RECORD_MMAP2) {
      auto m = Mmap2Record::decode(record);
      saw_own_map |= m->pid == pid && m->filename == exe_path();
      kthread_map |= m->pid == 2;
    }
  }
  EXPECT_TRUE(saw_init);
  EXPECT_TRUE(saw_self);
  EXPECT_TRUE(saw_thread);
  EXPECT_TRUE(saw_own_map);
  EXPECT_FALSE(kthread_map) << "kthreadd has no maps";
}

TEST(Sideband, KernelAndModuleMaps) {
  perf_event_attr attr = cpu_clock_attr();
  kernel::KernelText text{"_text", 0xffffffff81000000, 0xffffffff82209988};
  std::vector<kernel::KernelModule> modules = {{"b", 0xffffffffc0200000, 0x3000, "/lib/modules/x/b.ko"},
                                               {"a", 0xffffffffc0100000, 0x2000, ""}};
  std::string out;
  ASSERT_TRUE(synthesize_kernel_maps(attr, text, modules, append_to(out)));
  auto records = records_of(out);
  ASSERT_EQ(records.size(), 3u);
  for (const auto& record : records) {
    EXPECT_EQ(record.type(), PERF_RECORD_MMAP);
    EXPECT_EQ(record.misc(), PERF_RECORD_MISC_KERNEL);
    expect_zero_trailer(record, attr);
  }
  auto kernel_map = MmapRecord::decode(records[0]);
  EXPECT_EQ(kernel_map->pid, UINT32_MAX);
  EXPECT_EQ(kernel_map->tid, 0u);
  EXPECT_EQ(kernel_map->addr, 0xffffffff81000000u);
  EXPECT_EQ(kernel_map->len, 0x1209988u);
  EXPECT_EQ(kernel_map->pgoff, 0xffffffff81000000u);
  EXPECT_EQ(kernel_map->filename, "[kernel.kallsyms]_text");
  auto first = MmapRecord::decode(records[1]), second = MmapRecord::decode(records[2]);
  EXPECT_EQ(first->filename, "[a]");
  EXPECT_EQ(first->addr, 0xffffffffc0100000u);
  EXPECT_EQ(first->len, 0x2000u);
  EXPECT_EQ(second->filename, "/lib/modules/x/b.ko");

  // Without _etext the kernel map ends at the first module.
  text.end = 0;
  out.clear();
  ASSERT_TRUE(synthesize_kernel_maps(attr, text, modules, append_to(out)));
  EXPECT_EQ(MmapRecord::decode(records_of(out)[0])->len, 0xffffffffc0100000u - 0xffffffff81000000u);

  // A sink error stops the synthesis and comes back.
  auto refused = synthesize_kernel_maps(attr, text, modules,
                                        [](std::string_view) -> Result<void> { return fail("disk full"); });
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "disk full");
}
