#pragma once
// A DSO (shared object) as the session sees it: one per distinct file or kernel image that a
// process or the kernel maps. Interned: every map of the same file points at one Dso, so the
// symbols layer resolves each address of a file once, whichever process hit it.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sonde::session {

enum class DsoKind : uint8_t {
  user,           // an ELF file mapped by a process (executable, shared library)
  kernel,         // [kernel.kallsyms]: the kernel image; addresses are absolute
  kernel_module,  // a module ([ext4] short name, its .ko path or name as long name); absolute
  vdso,           // [vdso]
  jit_map,        // /tmp/perf-PID.map: an anonymous executable map of a JIT with a symbol file
  anon,           // //anon, [heap], [stack] and other mappings without a file
};

struct Dso {
  uint32_t id = 0;  // dense, stable for the session: index of per-DSO caches
  DsoKind kind = DsoKind::user;
  std::string long_name;   // as perf script prints it: "/usr/lib/x86_64-linux-gnu/libc.so.6"
  std::string short_name;  // as perf report prints it: "libc.so.6", "[kernel.kallsyms]"
  std::string build_id;    // lowercase hex, empty when the file carries none we know of
  bool hit = false;        // a sample or callchain entry landed in it
  uint64_t inode = 0;      // from the first MMAP2 that names it with one (perf's dso id)

  bool is_kernel() const { return kind == DsoKind::kernel || kind == DsoKind::kernel_module; }
};

// Owns the session's Dsos; pointers stay valid for its lifetime.
class DsoTable {
 public:
  // The Dso named `long_name`, created with `kind` the first time.
  Dso& intern(std::string_view long_name, DsoKind kind);
  Dso* find(std::string_view long_name);
  const std::vector<std::unique_ptr<Dso>>& all() const { return dsos_; }

 private:
  std::vector<std::unique_ptr<Dso>> dsos_;
  std::unordered_map<std::string, Dso*> by_name_;
};

// perf's short name: the basename of a path; bracketed names ("[vdso]") stay as they are.
std::string dso_short_name(std::string_view long_name);

}  // namespace sonde::session
