#pragma once
// The BPF programs loaded in the kernel, by id. Their JIT images show in kallsyms as "[bpf]"
// symbols, so what is loaded is part of the kernel's symbol state.
#include <cstdint>
#include <vector>

#include "base/error.hpp"

namespace sonde::kernel {

// Every loaded program's id, ascending (ids are not reused within a boot). Fails without
// CAP_SYS_ADMIN (EPERM), as the kernel hides them from others.
Result<std::vector<uint32_t>> loaded_bpf_program_ids();

}  // namespace sonde::kernel
