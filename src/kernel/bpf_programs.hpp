#pragma once
// The BPF programs loaded in the kernel, by id. Their JIT images show in kallsyms as "[bpf]"
// symbols, so what is loaded is part of the kernel's symbol state.
#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "base/error.hpp"
#include "base/unique_fd.hpp"

namespace sonde::kernel {

// Every loaded program's id, ascending (ids are not reused within a boot). Fails without
// CAP_SYS_ADMIN (EPERM), as the kernel hides them from others.
Result<std::vector<uint32_t>> loaded_bpf_program_ids();

// A pidfd for a task (a thread's needs PIDFD_THREAD): the key of BPF task storage from user
// space. The error names the task.
Result<UniqueFd> task_storage_key(pid_t tid);

}  // namespace sonde::kernel
