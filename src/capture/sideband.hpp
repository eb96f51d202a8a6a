#pragma once
// The side-band perf writes at the start of a recording, for what existed before the kernel
// started reporting: the kernel's map, module maps, and COMM/FORK/MMAP2 records for tasks read
// from /proc ("synthesized" events). Without them perf report cannot name a task or resolve an
// address in code mapped before recording began.
//
// What perf 6.1 writes, and so what these functions emit (checked with perf script -D):
//   every recording  MMAP pid -1 "[kernel.kallsyms]_text" (misc KERNEL), then one MMAP per module
//   a workload       COMM of the forked child before its exec; the kernel reports the rest
//   -p / -t          COMM per thread; the process's MMAP2s after its leader's COMM
//   -a               per task in /proc: FORK (misc FORK_EXEC), COMM; the MMAP2s after a leader's
//                    COMM; kernel threads get FORK and COMM only
// MMAP2s cover executable mappings ([vdso] and [vsyscall] included), plus readable data mappings
// with misc MMAP_DATA when asked (perf record -d). Like perf, every record carries an all-zero
// sample_id trailer when the attr has sample_id_all (time 0, cpu 0, id 0).
// Not done (perf does): NAMESPACES and CGROUP records, hugetlbfs mappings renamed to //anon, the
// x86 PTI entry-trampoline maps (absent on kernels since 5.x), the 500 ms per-process maps timeout.
#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "kernel/kallsyms.hpp"

namespace sonde::capture {

// Receives each record whole, in kernel format (header first). An error stops the synthesis.
using RecordSink = std::function<Result<void>(std::string_view record)>;

// A sink that appends to `buffer` (the record command writes it with one PerfDataWriter::append).
RecordSink append_to(std::string& buffer);

// One line of /proc/PID/maps.
struct ProcMap {
  uint64_t start = 0, end = 0, pgoff = 0;
  uint32_t maj = 0, min = 0;  // device numbers, hex in the file
  uint64_t ino = 0;
  std::string_view perms;  // "r-xp": read, write, exec, then p(rivate) or s(hared)
  std::string_view name;   // the path, "[vdso]"..., or "" for an anonymous mapping
};
// The maps in `text`; names point into `text`. Lines that do not parse are skipped.
std::vector<ProcMap> parse_proc_maps(std::string_view text);

struct SidebandOptions {
  bool mmaps = true;        // MMAP2 records for processes (false: COMM only, for the workload)
  bool data_mmaps = false;  // perf record -d: readable non-executable mappings too
  std::string proc = "/proc";
};

// MMAP for the kernel (pgoff = the reference symbol's address, which perf needs to relocate
// kallsyms; len runs to _etext, else to the first module, else to the end of the address space)
// and one MMAP per module, by address.
Result<void> synthesize_kernel_maps(const perf_event_attr& attr, const kernel::KernelText& text,
                                    std::span<const kernel::KernelModule> modules, const RecordSink& sink);

// perf's thread-map synthesis (-p, -t, the workload): for each tid, COMM(tgid, tid); for a
// process leader, its MMAP2s; a thread whose leader is not in `tids` brings the leader's COMM
// and MMAP2s along. Tasks that have exited meanwhile are skipped.
Result<void> synthesize_threads(const perf_event_attr& attr, std::span<const pid_t> tids,
                                const SidebandOptions& options, const RecordSink& sink);

// perf's -a synthesis: every task under /proc, processes by pid, each leader first.
Result<void> synthesize_all_tasks(const perf_event_attr& attr, const SidebandOptions& options,
                                  const RecordSink& sink);

// The MMAP2 records of one process's mappings (what the two above emit for a leader).
Result<void> synthesize_mmaps(const perf_event_attr& attr, pid_t pid, const SidebandOptions& options,
                              const RecordSink& sink);

// The threads of a process, the leader first, then by tid: the thread map perf opens for -p.
Result<std::vector<pid_t>> list_threads(pid_t pid, const std::string& proc = "/proc");

}  // namespace sonde::capture
