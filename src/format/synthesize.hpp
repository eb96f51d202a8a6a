#pragma once
// Records in the kernel's format, built in user space: what perf calls "synthesized" events
// (COMM and MMAP2 for processes that existed before recording started), and samples for tests
// and tools. Each takes the attr so the sample_id trailer matches what the kernel would append.
#include <linux/perf_event.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "format/sample.hpp"

namespace sonde::perfdata {

struct SyntheticSample {
  uint64_t ip = 0;                      // PERF_SAMPLE_IP
  uint32_t pid = 0, tid = 0;            // PERF_SAMPLE_TID
  uint64_t time = 0;                    // PERF_SAMPLE_TIME
  uint64_t addr = 0;                    // PERF_SAMPLE_ADDR
  uint64_t id = 0;                      // PERF_SAMPLE_ID, PERF_SAMPLE_IDENTIFIER
  uint64_t stream_id = 0;               // PERF_SAMPLE_STREAM_ID
  uint32_t cpu = 0;                     // PERF_SAMPLE_CPU
  uint64_t period = 0;                  // PERF_SAMPLE_PERIOD
  std::span<const uint64_t> callchain;  // PERF_SAMPLE_CALLCHAIN, PERF_CONTEXT_* markers included
  std::string_view raw;                 // PERF_SAMPLE_RAW
  uint64_t weight = 0;                  // PERF_SAMPLE_WEIGHT
  uint16_t misc = PERF_RECORD_MISC_USER;
};

// The trailer values for non-sample records; only the attr's sample_type bits are written.
struct SyntheticId {
  uint32_t pid = 0, tid = 0;
  uint64_t time = 0, id = 0, stream_id = 0;
  uint32_t cpu = 0;
};

// Sample types this builder can write (others make make_sample fail).
inline constexpr uint64_t kSynthesizableSampleType =
    PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
    PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
    PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT;

Result<std::string> make_sample(const perf_event_attr& attr, const SyntheticSample& sample);
std::string make_comm(const perf_event_attr& attr, uint32_t pid, uint32_t tid, std::string_view comm,
                      bool exec, const SyntheticId& id);
struct SyntheticMmap2 {
  uint32_t pid = 0, tid = 0;
  uint64_t addr = 0, len = 0, pgoff = 0;
  uint32_t maj = 0, min = 0;
  uint64_t ino = 0, ino_generation = 0;
  uint32_t prot = 0, flags = 0;
  std::string_view filename;
  uint16_t misc = PERF_RECORD_MISC_USER;
};
std::string make_mmap2(const perf_event_attr& attr, const SyntheticMmap2& mmap, const SyntheticId& id);
// PERF_RECORD_MMAP, as perf synthesizes the kernel's map: pid -1, misc KERNEL, the file name
// "[kernel.kallsyms]_text" and pgoff = the address of _text (perf's reference symbol for
// relocation; without it perf report warns that kernel maps were restricted).
std::string make_mmap(const perf_event_attr& attr, uint32_t pid, uint32_t tid, uint64_t addr, uint64_t len,
                      uint64_t pgoff, std::string_view filename, uint16_t misc, const SyntheticId& id);
// PERF_RECORD_FORK (fork = true) or PERF_RECORD_EXIT.
std::string make_fork_exit(const perf_event_attr& attr, bool fork, uint32_t pid, uint32_t ppid, uint32_t tid,
                           uint32_t ptid, uint64_t time, const SyntheticId& id);
// PERF_RECORD_NAMESPACES: a task's namespaces as (dev, inode) pairs in perf's order (net, uts, ipc,
// pid, user, mnt, cgroup).
std::string make_namespaces(const perf_event_attr& attr, uint32_t pid, uint32_t tid,
                            std::span<const std::pair<uint64_t, uint64_t>> links, const SyntheticId& id);
// PERF_RECORD_CGROUP: a cgroup's id and its path below the hierarchy root.
std::string make_cgroup(const perf_event_attr& attr, uint64_t cgroup_id, std::string_view path,
                        const SyntheticId& id);
std::string make_finished_round();

}  // namespace sonde::perfdata
