#pragma once
// perf record --kcore: the kernel's code as it is in memory (after it has patched itself: static
// keys, ftrace and kprobe sites, alternatives), kept beside the recording so that annotating a
// kernel function shows the instructions that ran. perf 6.1's kcore_copy, step for step:
//   - <proc>/kallsyms and <proc>/modules copied as they are (mode 0400);
//   - the ranges to keep: the kernel's text, _stext (or its lowest function) rounded down to a
//     page, to _etext rounded up (or its highest function plus a page); the modules', from the
//     lowest of /proc/modules' addresses and the module symbols ("[name]" in kallsyms, BPF's
//     "[bpf]" too) rounded down, to the highest module symbol rounded up plus a page;
//   - each range taken from the executable PT_LOAD segment of <proc>/kcore it starts in, cut at
//     that segment's end;
//   - written as an ELF core file: /proc/kcore's identity (class, machine, type), one PT_LOAD per
//     range (RWX, page-aligned), their bytes from the first page boundary after the headers on;
//   - kallsyms read again and compared with the copy: a module loaded meanwhile fails the copy.
// What the copy could not finish is removed. The entry trampolines and remapped segments of
// 2018's x86 page-table isolation are not handled: no 6.x kernel has them.
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde::kernel {

// Whether <proc_dir>/kcore opens for reading (perf's check before it records).
bool kcore_readable(const std::string& proc_dir);

// Copies <proc_dir>'s kcore, kallsyms and modules into `to_dir`, which must exist.
Result<void> copy_kcore(const std::string& proc_dir, const std::string& to_dir);

// One kept range: [address, address + length) of the kernel's memory, at `kcore_offset` in
// /proc/kcore.
struct KcoreRange {
  uint64_t address = 0, length = 0, kcore_offset = 0;
};

// The ranges copy_kcore keeps, from kallsyms' and /proc/modules' text and kcore's executable
// segments (vaddr, size, file offset); fails when kallsyms names no kernel text.
struct KcoreSegment {
  uint64_t vaddr = 0, size = 0, offset = 0;
};
Result<std::vector<KcoreRange>> kcore_ranges(std::string_view kallsyms, std::string_view modules,
                                             const std::vector<KcoreSegment>& segments, uint64_t page_size);

}  // namespace sonde::kernel
