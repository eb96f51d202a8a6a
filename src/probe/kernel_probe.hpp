#pragma once
// Kernel probes from a definition, for kprobe_events: the function checked against the
// kernel's BTF (/sys/kernel/btf/vmlinux) or kallsyms, arguments by name from its BTF prototype
// (x86-64's argument registers, members through BTF struct layouts, perf's types and names), as
// newer perf does without a vmlinux carrying DWARF. Lines and lazy patterns need that DWARF.
#include <string>
#include <vector>

#include "base/error.hpp"
#include "kernel/probe_events.hpp"
#include "probe/probe_spec.hpp"

namespace sonde::probe {

struct KernelProbe {
  kernel::ProbeEventLine line;  // group and event left for the namer
  std::string function;
};

// `btf_path` is the kernel's BTF ("/sys/kernel/btf/vmlinux"); `kallsyms` is read only for a
// function BTF does not describe.
Result<KernelProbe> resolve_kernel_probe(const ProbeSpec& spec,
                                         const std::string& btf_path = "/sys/kernel/btf/vmlinux",
                                         const std::string& kallsyms = "/proc/kallsyms");

}  // namespace sonde::probe
