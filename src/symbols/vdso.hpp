#pragma once
// The vdso image of this process: the kernel maps the same image into every process, so a
// recorded [vdso] whose build-id matches ours can be symbolized from our own copy (perf reads
// it out of a process at record time and keeps it in the build-id cache).
#include <vector>

namespace sonde::symbols {

// The bytes of our [vdso] mapping; empty when the process has none.
std::vector<char> own_vdso_image();

}  // namespace sonde::symbols
