#include "kernel/bpf_programs.hpp"

#include <fcntl.h>
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
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

Result<UniqueFd> task_storage_key(pid_t tid) {
  constexpr unsigned kPidfdThread = O_EXCL;
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, tid, 0u));
  if (pidfd < 0 && errno == ENOENT) pidfd = static_cast<int>(::syscall(SYS_pidfd_open, tid, kPidfdThread));
  if (pidfd < 0) return failf("cannot follow task {}: pidfd_open: {}", tid, errno_text(errno));
  return UniqueFd(pidfd);
}

}  // namespace sonde::kernel
