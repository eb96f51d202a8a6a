#include "session/machine.hpp"

#include <fmt/format.h>

#include "kernel/kallsyms.hpp"

namespace sonde::session {

namespace {

// perf's is_anon_memory: executable anonymous memory is a JIT's, named by /tmp/perf-PID.map.
bool is_anon_memory(std::string_view name) {
  return name == "//anon" || name.starts_with("/dev/zero") || name.starts_with("/anon_hugepage");
}

// Mappings with no file behind them (perf's is_no_dso_memory and the kernel's special names).
bool is_no_file_memory(std::string_view name) {
  return name.empty() || name.starts_with("[stack") || name.starts_with("/SYSV") || name == "[heap]" ||
         name == "[vsyscall]" || name == "[vvar]" || name.starts_with("/memfd:");
}

}  // namespace

uint8_t context_cpumode(uint64_t marker, uint8_t current) {
  switch (marker) {
    case PERF_CONTEXT_HV:
      return PERF_RECORD_MISC_HYPERVISOR;
    case PERF_CONTEXT_KERNEL:
      return PERF_RECORD_MISC_KERNEL;
    case PERF_CONTEXT_USER:
      return PERF_RECORD_MISC_USER;
    case PERF_CONTEXT_GUEST_KERNEL:
      return PERF_RECORD_MISC_GUEST_KERNEL;
    case PERF_CONTEXT_GUEST_USER:
      return PERF_RECORD_MISC_GUEST_USER;
    default:
      return current;
  }
}

Machine::Machine() {
  // perf names the idle task before any record does.
  thread(0, 0).comm = "swapper";
  thread(0, 0).comm_set = true;
}

void Machine::add_build_id(std::string_view filename, std::string hex) {
  build_ids_[std::string(filename)] = hex;
  if (Dso* dso = dsos_.find(filename)) dso->build_id = std::move(hex);
}

Thread& Machine::thread(int32_t pid, int32_t tid) {
  // Consecutive samples mostly come from one thread.
  if (last_thread_ != nullptr && last_thread_->tid == tid && (last_thread_->pid != -1 || pid == -1))
    return *last_thread_;
  auto it = threads_.find(tid);
  if (it != threads_.end()) {
    Thread& existing = *it->second;
    if (existing.pid == -1 && pid != -1) existing.pid = pid;
    last_thread_ = &existing;
    return existing;
  }
  auto created = std::make_unique<Thread>();
  created->pid = pid;
  created->tid = tid;
  created->comm = fmt::format(":{}", tid);
  // A thread of a known process shares its address space.
  if (pid != tid && pid != -1) {
    auto leader = threads_.find(pid);
    if (leader != threads_.end()) created->maps = leader->second->maps;
  }
  if (!created->maps) created->maps = std::make_shared<AddressSpace>();
  Thread& ref = *created;
  threads_[tid] = std::move(created);
  last_thread_ = &ref;
  return ref;
}

const Thread* Machine::find_thread(int32_t tid) const {
  auto it = threads_.find(tid);
  return it == threads_.end() ? nullptr : it->second.get();
}

std::vector<const Thread*> Machine::threads() const {
  std::vector<const Thread*> all;
  all.reserve(threads_.size());
  for (const auto& [tid, thread] : threads_) all.push_back(thread.get());
  return all;
}

void Machine::apply_comm(const perfdata::CommRecord& comm) {
  Thread& t = thread(static_cast<int32_t>(comm.pid), static_cast<int32_t>(comm.tid));
  t.comm = std::string(comm.comm);
  t.comm_set = true;
  // perf keeps the maps across exec: the new image's MMAPs cut away what they overlap, and the
  // execve call's own samples still resolve in the old image (perf script shows them so).
}

void Machine::apply_fork(const perfdata::ForkExitRecord& fork) {
  int32_t pid = static_cast<int32_t>(fork.pid), tid = static_cast<int32_t>(fork.tid);
  int32_t ppid = static_cast<int32_t>(fork.ppid), ptid = static_cast<int32_t>(fork.ptid);
  Thread& parent = thread(ppid, ptid);
  // perf's thread__fork: the child takes the parent's name only when a COMM named the parent.
  bool comm_set = parent.comm_set;
  std::string comm = comm_set ? parent.comm : fmt::format(":{}", tid);
  std::shared_ptr<AddressSpace> parent_maps = parent.maps;
  // A reused tid is a new thread: drop what we knew of the old one.
  last_thread_ = nullptr;  // the entry below may go or be replaced
  if (tid != ptid) threads_.erase(tid);
  auto child = std::make_unique<Thread>();
  child->pid = pid;
  child->tid = tid;
  child->ppid = ptid;
  child->comm = std::move(comm);
  child->comm_set = comm_set;
  // A new process starts with a copy of its parent's maps, as the kernel made it, except when
  // the FORK was written for a task that already ran (its MMAPs follow), as perf does.
  if (pid == ppid)
    child->maps = parent_maps;
  else
    child->maps =
        fork.synthesized ? std::make_shared<AddressSpace>() : std::make_shared<AddressSpace>(*parent_maps);
  threads_[tid] = std::move(child);
}

void Machine::apply_exit(const perfdata::ForkExitRecord& exit) {
  auto it = threads_.find(static_cast<int32_t>(exit.tid));
  if (it != threads_.end()) it->second->exited = true;
}

Dso& Machine::dso_for(std::string_view filename, int32_t pid, bool kernel_map, bool executable) {
  if (kernel_map) {
    if (filename.starts_with("[kernel.kallsyms]")) return dsos_.intern("[kernel.kallsyms]", DsoKind::kernel);
    bool fresh = dsos_.find(filename) == nullptr;
    Dso& module = dsos_.intern(filename, DsoKind::kernel_module);
    if (fresh) module.short_name = "[" + kernel::module_name_from_path(filename) + "]";  // perf's "[ext4]"
    return module;
  }
  if (filename == "[vdso]") return dsos_.intern(filename, DsoKind::vdso);
  // perf names only executable anonymous memory after the JIT's map; data stays "//anon".
  if (is_anon_memory(filename) && executable)
    return dsos_.intern(fmt::format("/tmp/perf-{}.map", pid), DsoKind::jit_map);
  if (is_anon_memory(filename)) return dsos_.intern(filename, DsoKind::anon);
  if (is_no_file_memory(filename)) return dsos_.intern(filename, DsoKind::anon);
  return dsos_.intern(filename, DsoKind::user);
}

void Machine::apply_mmap(int32_t pid, int32_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
                         std::string_view filename, uint32_t prot, uint32_t flags, uint8_t cpumode,
                         std::string_view build_id_hex, uint64_t inode) {
  bool kernel_map = cpumode == PERF_RECORD_MISC_KERNEL || pid == -1;
  constexpr uint32_t kProtExec = 4;
  Dso& dso = dso_for(filename, pid, kernel_map, (prot & kProtExec) != 0);
  if (dso.inode == 0) dso.inode = inode;
  if (!build_id_hex.empty()) {
    dso.build_id = std::string(build_id_hex);
  } else if (dso.build_id.empty()) {
    auto known = build_ids_.find(dso.long_name);
    if (known != build_ids_.end()) dso.build_id = known->second;
  }
  Map map{.start = start, .end = start + len, .pgoff = pgoff, .dso = &dso, .prot = prot, .flags = flags};
  // perf stretches the kernel image's map to the next map (modules are looked up first here), so
  // .init.text and the rest past _etext (start_kernel on the idle stack) still resolve.
  if (map.end < start || dso.kind == DsoKind::kernel) map.end = UINT64_MAX;
  if (kernel_map) {
    (dso.kind == DsoKind::kernel ? kernel_image_ : modules_).insert(map);
    return;
  }
  thread(pid, tid).maps->insert(map);
}

Location Machine::locate(const Thread& thread, uint8_t cpumode, uint64_t ip) const {
  Location loc;
  loc.ip = ip;
  loc.cpumode = cpumode;
  loc.dso_address = ip;
  const Map* map = nullptr;
  if (loc.kernel()) {
    map = modules_.find(ip);
    if (map == nullptr) map = kernel_image_.find(ip);
  } else if (thread.maps) {
    map = thread.maps->find(ip);
  }
  if (map != nullptr) {
    loc.map = map;
    loc.dso = map->dso;
    loc.dso_address = map->dso_address(ip);
  }
  return loc;
}

}  // namespace sonde::session
