#pragma once
// The few facts about the running kernel's layout that perf's side-band needs: where kernel text
// starts and ends (for the "[kernel.kallsyms]_text" MMAP record) and the loaded modules (one
// MMAP each). /proc/kallsyms holds ~120k symbols and costs ~50 ms to read whole, so nothing here
// loads it: the reference symbol is among its first lines, and the end of text comes from
// /proc/iomem where the kernel says so (x86), scanning kallsyms only as the fallback.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::kernel {

struct KernelText {
  // perf's reference relocation symbol: "_text", or "_stext" on a kernel without _text. perf
  // names the kernel map after it and stores its address as the map's pgoff.
  std::string ref_name;
  uint64_t start = 0;  // the address of ref_name
  uint64_t end = 0;    // _etext; 0 when unknown (perf then ends the map at the first module)
};

struct KallsymsPaths {
  std::string kallsyms = "/proc/kallsyms";
  std::string iomem = "/proc/iomem";  // "" to always scan kallsyms for _etext
};

// Finds _text/_stext and _etext. Fails when kallsyms shows no addresses (kptr_restrict, or not
// privileged): perf then records no kernel map and warns that kernel maps were restricted.
Result<KernelText> find_kernel_text(const KallsymsPaths& paths = {});

// The length of kernel text from /proc/iomem's "Kernel code" range (x86 sets it to exactly
// _text.._etext-1). 0 when absent or hidden (the kernel shows zeros to the unprivileged).
uint64_t iomem_kernel_code_size(std::string_view iomem);

struct KernelModule {
  std::string name;    // as /proc/modules spells it, e.g. "nf_tables"
  uint64_t start = 0;  // load address of its core (text first)
  uint64_t size = 0;
  // The .ko file under /lib/modules/<release>/ when modules.dep knows it (perf's dso long name),
  // else "[name]" as perf names a module it cannot find on disk.
  std::string path;
};

// The kernel's name for a module file: "kernel/net/nf-nat.ko.xz" -> "nf_nat" (dashes become
// underscores, as kmod does); "[name]" -> "name".
std::string module_name_from_path(std::string_view path);

// Parses /proc/modules lines ("name size refs deps state 0xaddr [taint]"); lines that do not
// parse are skipped. Paths are left empty.
std::vector<KernelModule> parse_modules(std::string_view text);

// Fills KernelModule::path from a modules.dep text ("kernel/fs/xfs/xfs.ko.xz: deps...").
// `module_dir` is /lib/modules/<release>.
void resolve_module_paths(std::vector<KernelModule>& modules, std::string_view modules_dep,
                          const std::string& module_dir);

// The loaded modules with their paths; empty (not an error) on a kernel without module support.
Result<std::vector<KernelModule>> read_modules(const std::string& proc_modules = "/proc/modules");

}  // namespace sonde::kernel
