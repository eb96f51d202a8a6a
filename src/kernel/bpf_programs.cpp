#include "kernel/bpf_programs.hpp"

#include <bpf/libbpf.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>

namespace sonde::kernel {

Result<std::vector<uint32_t>> loaded_bpf_program_ids() {
  // The bare syscall: this runs before anything else needs libbpf.
  std::vector<uint32_t> ids;
  uint32_t id = 0;
  while (true) {
    union bpf_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.start_id = id;
    if (::syscall(SYS_bpf, BPF_PROG_GET_NEXT_ID, &attr, sizeof attr) != 0) {
      if (errno == ENOENT) return ids;
      return fail_errno(errno, "cannot list the loaded BPF programs");
    }
    id = attr.next_id;
    ids.push_back(id);
  }
}

namespace {
int silent(enum libbpf_print_level, const char*, va_list) { return 0; }
}  // namespace

void quiet_libbpf() { libbpf_set_print(silent); }

Result<UniqueFd> task_storage_key(pid_t tid) {
  constexpr unsigned kPidfdThread = O_EXCL;
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, tid, 0u));
  if (pidfd < 0 && errno == ENOENT) pidfd = static_cast<int>(::syscall(SYS_pidfd_open, tid, kPidfdThread));
  if (pidfd < 0) return failf("cannot follow task {}: pidfd_open: {}", tid, errno_text(errno));
  return UniqueFd(pidfd);
}

Result<void> mark_task(struct bpf_map* map, pid_t tid, const void* value, size_t size) {
  auto pidfd = task_storage_key(tid);
  if (!pidfd) return tl::unexpected(pidfd.error());
  int key = pidfd->get();
  if (bpf_map__update_elem(map, &key, sizeof key, value, size, BPF_ANY) != 0)
    return failf("cannot follow task {}: {}", tid, errno_text(errno));
  return {};
}

Result<void> attach_programs(std::initializer_list<struct bpf_program*> programs,
                             std::initializer_list<struct bpf_link**> links) {
  auto link = links.begin();
  for (struct bpf_program* program : programs) {
    struct bpf_link** slot = *link++;
    if (!bpf_program__autoload(program) || *slot) continue;
    *slot = bpf_program__attach(program);
    if (!*slot) {
      int err = errno;
      *slot = nullptr;
      return failf("cannot attach BPF program {}: {}", bpf_program__name(program), errno_text(err));
    }
  }
  return {};
}

void detach_programs(std::initializer_list<struct bpf_link**> links) {
  for (struct bpf_link** link : links) {
    if (*link) bpf_link__destroy(*link);
    *link = nullptr;
  }
}

}  // namespace sonde::kernel
