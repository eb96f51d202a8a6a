#include "capture/record_sideband.hpp"

#include <cstring>

#include "capture/sideband.hpp"
#include "kernel/kallsyms.hpp"

namespace sonde::capture {

Result<std::string> synthesize_record_sideband(const perf_event_attr& attr, const SamplingTarget& target,
                                               bool data_mmaps) {
  std::string records;
  auto sink = append_to(records);
  // perf writes the kernel map first; without kallsyms addresses it writes none (and warns).
  if (auto text = kernel::find_kernel_text()) {
    auto modules = kernel::read_modules();
    std::vector<kernel::KernelModule> none;
    if (auto made = synthesize_kernel_maps(attr, *text, modules ? *modules : none, sink); !made)
      return tl::unexpected(made.error());
  }
  SidebandOptions options;
  options.data_mmaps = data_mmaps;
  switch (target.kind) {
    case SamplingTarget::Kind::workload:
      // The held child before its exec: its COMM; the kernel reports the exec and its maps.
      options.mmaps = false;
      if (auto made = synthesize_threads(attr, target.tids, options, sink); !made) return tl::unexpected(made.error());
      break;
    case SamplingTarget::Kind::threads:
      if (auto made = synthesize_threads(attr, target.tids, options, sink); !made) return tl::unexpected(made.error());
      break;
    case SamplingTarget::Kind::system:
      if (auto made = synthesize_all_tasks(attr, options, sink); !made) return tl::unexpected(made.error());
      break;
  }
  return records;
}

void DsoCollector::observe(const void* record, size_t size) {
  auto* header = static_cast<const perf_event_header*>(record);
  const char* bytes = static_cast<const char*>(record);
  size_t name_offset;
  // MMAP: header, pid, tid, addr, len, pgoff, filename. MMAP2 adds maj, min, ino,
  // ino_generation (or a build-id), prot and flags before the filename.
  if (header->type == PERF_RECORD_MMAP) name_offset = 8 + 8 + 24;
  else if (header->type == PERF_RECORD_MMAP2) name_offset = 8 + 8 + 24 + 24 + 8;
  else return;
  if (size <= name_offset) return;
  size_t length = strnlen(bytes + name_offset, size - name_offset);
  std::string name(bytes + name_offset, length);
  // Real files only: not [vdso], [heap], //anon, the kernel map's "[kernel.kallsyms]_text".
  if (!name.empty() && name.front() == '/') files_.insert(std::move(name));
}

std::vector<DsoRef> DsoCollector::dsos() const {
  std::vector<DsoRef> dsos = {{"[kernel.kallsyms]", true}};
  for (const auto& file : files_) dsos.push_back({file, false});
  return dsos;
}

}  // namespace sonde::capture
