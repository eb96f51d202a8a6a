#include "unwind/dwarf_unwinder.hpp"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "base/bytes.hpp"

namespace sonde::unwind {

namespace {

// x86-64: the DWARF register numbers 0..16 (rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8..r15,
// rip), each as the perf_event register it is saved under (enum perf_event_x86_regs).
constexpr int kDwarfToPerfReg[17] = {0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8};
constexpr int kPerfRegSp = 7;
constexpr int kPerfRegIp = 8;

char* no_debuginfo_path = nullptr;
const Dwfl_Callbacks kDwflCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &no_debuginfo_path,
};

}  // namespace

// What the callbacks need while one sample is unwound.
struct SampleContext {
  const session::Machine* machine = nullptr;
  const session::Thread* thread = nullptr;
  const perfdata::Sample* sample = nullptr;
  uint64_t sp = 0;
  sonde::Bytes stack;  // the valid part of the stack copy, starting at sp
  std::vector<session::Location>* frames = nullptr;
  size_t budget = 0;
};

// The files behind DSOs, opened once, for memory the stack copy does not hold.
struct DsoFiles {
  DwarfUnwinder::ElfPathFn elf_path;
  std::unordered_map<std::string, int> fds;

  ~DsoFiles() {
    for (auto& [path, fd] : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
  std::string path_of(const session::Dso& dso) const { return elf_path ? elf_path(dso) : dso.long_name; }
  int fd_of(const std::string& path) {
    auto it = fds.find(path);
    if (it != fds.end()) return it->second;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    fds.emplace(path, fd);
    return fd;
  }
};

// One Dwfl for one address space, with the DSOs of its executable maps reported.
struct ProcessDwfl {
  Dwfl* dwfl = nullptr;
  std::shared_ptr<session::AddressSpace> space;  // held so its address is not reused
  uint64_t generation = 0;
  bool attached = false;
  DsoFiles* files = nullptr;
  SampleContext* current = nullptr;
  ~ProcessDwfl() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }
};

struct DwarfUnwinder::State {
  DsoFiles files;
  size_t max_frames = 127;
  std::unordered_map<const session::AddressSpace*, std::unique_ptr<ProcessDwfl>> processes;

  ProcessDwfl* process_for(const session::Thread& thread);
};

namespace {

pid_t next_thread(Dwfl*, void*, void**) { return 0; }

bool get_thread(Dwfl*, pid_t, void* dwfl_arg, void** thread_argp) {
  *thread_argp = dwfl_arg;
  return true;
}

bool memory_read(Dwfl*, Dwarf_Addr addr, Dwarf_Word* result, void* dwfl_arg) {
  auto* process = static_cast<ProcessDwfl*>(dwfl_arg);
  SampleContext& ctx = *process->current;
  if (addr >= ctx.sp && addr - ctx.sp + sizeof(Dwarf_Word) <= ctx.stack.size()) {
    *result = sonde::load<Dwarf_Word>(ctx.stack.data() + (addr - ctx.sp));
    return true;
  }
  // Outside the copied stack: read-only data of a mapped file (perf reads the DSO likewise).
  session::Location loc = ctx.machine->locate(*ctx.thread, PERF_RECORD_MISC_USER, addr);
  if (loc.dso == nullptr || loc.dso->kind != session::DsoKind::user) return false;
  int fd = process->files->fd_of(process->files->path_of(*loc.dso));
  if (fd < 0) return false;
  return ::pread(fd, result, sizeof(*result), static_cast<off_t>(loc.dso_address)) == sizeof(*result);
}

bool set_initial_registers(Dwfl_Thread* thread, void* thread_arg) {
  auto* process = static_cast<ProcessDwfl*>(thread_arg);
  const perfdata::Regs& regs = process->current->sample->regs_user;
  Dwarf_Word values[17];
  for (int i = 0; i < 17; ++i) values[i] = regs.get(kDwarfToPerfReg[i]).value_or(0);
  return dwfl_thread_state_registers(thread, 0, 17, values);
}

const Dwfl_Thread_Callbacks kThreadCallbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
    .detach = nullptr,
    .thread_detach = nullptr,
};

int frame_callback(Dwfl_Frame* state, void* arg) {
  auto* ctx = static_cast<SampleContext*>(arg);
  Dwarf_Addr pc = 0;
  bool activation = false;
  if (!dwfl_frame_pc(state, &pc, &activation)) return DWARF_CB_ABORT;
  // A caller's pc is a return address; the call itself is the byte before.
  if (!activation && pc > 0) pc--;
  ctx->frames->push_back(ctx->machine->locate(*ctx->thread, PERF_RECORD_MISC_USER, pc));
  return --ctx->budget == 0 ? DWARF_CB_ABORT : DWARF_CB_OK;
}

}  // namespace

ProcessDwfl* DwarfUnwinder::State::process_for(const session::Thread& thread) {
  const session::AddressSpace* key = thread.maps.get();
  auto& slot = processes[key];
  if (slot && slot->generation == thread.maps->generation()) return slot.get();
  // New, or the maps changed since: report the modules again into a fresh Dwfl.
  if (processes.size() > 256) {
    processes.clear();  // bounded: a system-wide profile of many short processes
    return process_for(thread);
  }
  slot = std::make_unique<ProcessDwfl>();
  ProcessDwfl& process = *slot;
  process.files = &files;
  process.space = thread.maps;
  process.generation = thread.maps->generation();
  process.dwfl = dwfl_begin(&kDwflCallbacks);
  if (process.dwfl == nullptr) return nullptr;
  dwfl_report_begin(process.dwfl);
  std::unordered_set<const session::Dso*> reported;
  bool any = false;
  for (const session::Map& map : thread.maps->maps()) {
    if (map.dso == nullptr || map.dso->kind != session::DsoKind::user || !(map.prot & 4 /* PROT_EXEC */))
      continue;
    if (!reported.insert(map.dso).second) continue;
    std::string path = files.path_of(*map.dso);
    if (dwfl_report_elf(process.dwfl, map.dso->short_name.c_str(), path.c_str(), -1, map.start - map.pgoff,
                        false) != nullptr) {
      any = true;
    }
  }
  dwfl_report_end(process.dwfl, nullptr, nullptr);
  if (!any) return nullptr;
  process.attached =
      dwfl_attach_state(process.dwfl, nullptr, thread.pid > 0 ? thread.pid : 1, &kThreadCallbacks, &process);
  return process.attached ? &process : nullptr;
}

DwarfUnwinder::DwarfUnwinder(ElfPathFn elf_path, size_t max_frames) : state_(std::make_unique<State>()) {
  state_->files.elf_path = std::move(elf_path);
  state_->max_frames = max_frames;
}

DwarfUnwinder::~DwarfUnwinder() = default;

void DwarfUnwinder::unwind(const session::Machine& machine, const session::Thread& thread,
                           const perfdata::Sample& sample, std::vector<session::Location>& frames) {
  if (!thread.maps) return;
  auto sp = sample.regs_user.get(kPerfRegSp);
  auto ip = sample.regs_user.get(kPerfRegIp);
  if (!sp || !ip) return;
  ProcessDwfl* process = state_->process_for(thread);
  if (process == nullptr) {
    // No CFI to walk: the sampled user ip alone, as perf shows it.
    frames.push_back(machine.locate(thread, PERF_RECORD_MISC_USER, *ip));
    return;
  }
  SampleContext ctx;
  ctx.machine = &machine;
  ctx.thread = &thread;
  ctx.sample = &sample;
  ctx.sp = *sp;
  ctx.stack = sample.stack_user.first(std::min<size_t>(sample.stack_user.size(), sample.stack_user_dyn_size));
  ctx.frames = &frames;
  ctx.budget = state_->max_frames;
  process->current = &ctx;
  size_t before = frames.size();
  dwfl_getthread_frames(process->dwfl, thread.tid > 0 ? thread.tid : 1, frame_callback, &ctx);
  process->current = nullptr;
  if (frames.size() == before) frames.push_back(machine.locate(thread, PERF_RECORD_MISC_USER, *ip));
}

}  // namespace sonde::unwind
