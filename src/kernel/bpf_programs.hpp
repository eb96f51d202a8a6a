#pragma once
// The BPF programs loaded in the kernel, by id. Their JIT images show in kallsyms as "[bpf]"
// symbols, so what is loaded is part of the kernel's symbol state.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "base/error.hpp"
#include "base/unique_fd.hpp"

struct bpf_map;
struct bpf_program;
struct bpf_link;

namespace sonde::kernel {

// Every loaded program's id, ascending (ids are not reused within a boot). Fails without
// CAP_SYS_ADMIN (EPERM), as the kernel hides them from others.
Result<std::vector<uint32_t>> loaded_bpf_program_ids();

// Silences libbpf's own messages on stderr: sonde reports failures itself, in one line.
void quiet_libbpf();

// Gives a task a value in a BPF task-storage map (a mark the programs follow it by): the error
// names the task.
Result<void> mark_task(struct bpf_map* map, pid_t tid, const void* value, size_t size);

// Attaches each loaded program not attached yet into its link slot, in order (followers of
// forks first, so that none is missed); the error names the program.
Result<void> attach_programs(std::initializer_list<struct bpf_program*> programs,
                             std::initializer_list<struct bpf_link**> links);
// Destroys the links in these slots and empties them.
void detach_programs(std::initializer_list<struct bpf_link**> links);

// A pidfd for a task (a thread's needs PIDFD_THREAD): the key of BPF task storage from user
// space. The error names the task.
Result<UniqueFd> task_storage_key(pid_t tid);

}  // namespace sonde::kernel
