#pragma once
// blktrace's binary files (NAME.blktrace.CPU, what blkparse, btt and iowatcher read): one stream
// of struct blk_io_trace per CPU, each a 48-byte header in the writer's byte order (a magic that
// says which) followed by pdu_len bytes of payload. The action word holds the category bits
// (read, write, sync... in its upper half) and the action (queue, issue, complete...) or, for
// notes, the note kind (a process name, the start time, a message).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "base/unique_fd.hpp"

namespace sonde::format {

inline constexpr uint32_t kBlkTraceMagic = 0x65617400;  // "eat\0" with the version in the low byte
inline constexpr uint32_t kBlkTraceVersion = 0x07;
inline constexpr size_t kBlkTraceHeaderSize = 48;

// Category bits, shifted into the action word's upper half.
enum BlkCategory : uint32_t {
  kBlkRead = 1u << 0,
  kBlkWrite = 1u << 1,
  kBlkFlush = 1u << 2,
  kBlkSync = 1u << 3,
  kBlkQueue = 1u << 4,
  kBlkRequeue = 1u << 5,
  kBlkIssue = 1u << 6,
  kBlkComplete = 1u << 7,
  kBlkFs = 1u << 8,
  kBlkPc = 1u << 9,
  kBlkNotify = 1u << 10,
  kBlkAhead = 1u << 11,
  kBlkMeta = 1u << 12,
  kBlkDiscard = 1u << 13,
  kBlkDriverData = 1u << 14,
  kBlkFua = 1u << 15,
};
constexpr uint32_t blk_category(uint32_t category) { return category << 16; }

// The action numbers in the action word's low byte.
enum BlkAction : uint32_t {
  kBlkQueueAction = 1,
  kBlkBackMerge = 2,
  kBlkFrontMerge = 3,
  kBlkGetRequest = 4,
  kBlkSleepRequest = 5,
  kBlkRequeueAction = 6,
  kBlkIssueAction = 7,
  kBlkCompleteAction = 8,
  kBlkPlug = 9,
  kBlkUnplugIo = 10,
  kBlkUnplugTimer = 11,
  kBlkInsert = 12,
  kBlkSplit = 13,
  kBlkBounce = 14,
  kBlkRemap = 15,
  kBlkAbort = 16,
  kBlkDriverDataAction = 17,
};
inline constexpr uint32_t kBlkCgroupFlag = 1u << 8;  // a cgroup id leads the payload

// Notes (with the notify category): what a pid is called, when tracing started, a message.
enum BlkNote : uint32_t { kBlkNoteProcess = 0, kBlkNoteTimestamp = 1, kBlkNoteMessage = 2 };

struct BlkTrace {
  uint32_t sequence = 0;  // per CPU, from 1
  uint64_t time = 0;      // ns
  uint64_t sector = 0;
  uint32_t bytes = 0;
  uint32_t action = 0;
  uint32_t pid = 0;
  uint32_t device = 0;  // the kernel's dev_t: major << 20 | minor
  uint32_t cpu = 0;
  uint16_t error = 0;
  std::string pdu;

  // The action in the low half; a cgroup flag there makes it one blkparse 1.2 does not know.
  uint32_t action_number() const { return action & 0xffff; }
  bool is_note() const { return (action & blk_category(kBlkNotify)) != 0; }
};

inline uint32_t blk_major(uint32_t device) { return device >> 20; }
inline uint32_t blk_minor(uint32_t device) { return device & ((1u << 20) - 1); }

// One trace as blktrace writes it (native byte order), appended to `out`.
void append_blk_trace(const BlkTrace& trace, std::string& out);

// One blktrace file read a trace at a time through a small buffer (blkparse's memory stays flat
// however long the trace; so does this). Either byte order, decided by the first trace's magic.
class BlktraceReader {
 public:
  static Result<BlktraceReader> open(const std::string& path);

  // The next trace; false at the end. A bad magic or version is an error naming the file and the
  // offset; a last trace cut short ends the file, said in cut_short(), as blkparse drops it.
  Result<bool> next(BlkTrace& trace);
  const std::string& cut_short() const { return cut_short_; }

 private:
  BlktraceReader() = default;
  // At least `size` bytes from the current offset in the buffer; false when the file ends first.
  Result<bool> fill(size_t size);

  std::string path_;
  UniqueFd fd_;
  std::string buffer_;
  size_t at_ = 0;          // into buffer_
  uint64_t consumed_ = 0;  // file offset of buffer_[0]
  bool swap_ = false, order_known_ = false, ended_ = false;
  std::string cut_short_;
};

// Traces gathered into blktrace's per-CPU streams as the kernel's relay writes them: numbered per
// CPU from 1, a process note (the pid's comm) before the first trace of each pid.
class BlktraceStreams {
 public:
  // `comm_of(pid)` is asked only for a pid not named yet.
  void add(BlkTrace trace, const std::function<std::string(uint32_t pid)>& comm_of);
  // Index: the CPU. CPUs without traces up to the highest one have empty streams.
  std::vector<std::vector<BlkTrace>>& cpus() { return cpus_; }
  uint64_t traces() const { return traces_; }

 private:
  std::vector<std::vector<BlkTrace>> cpus_;
  std::vector<uint32_t> sequences_;
  std::vector<uint32_t> named_pids_;  // sorted
  uint64_t traces_ = 0;
};

// "NAME.blktrace.CPU", as blktrace names its files.
std::string blktrace_file_name(const std::string& name, int cpu);

}  // namespace sonde::format
