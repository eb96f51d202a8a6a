#pragma once
// One system call as perf trace 6.1 prints it:
//      0.317 ( 0.014 ms): ls/1279 openat(dfd: CWD, filename: "/etc/ld.so.cache", flags: RDONLY|CLOEXEC) = 3
// with argument values "beautified" as perf does (flags and enums by name, fds with their paths
// when known, errno names), except that path names read by the tracer print as strings where
// perf 6.1 without kprobes prints a pointer.
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kernel/syscall_formats.hpp"
#include "output/trace/syscall_arg_beautifiers.hpp"

namespace sonde::output {

// One argument field of a syscall, from its tracefs sys_enter_* format, in order, after
// __syscall_nr: e.g. {"filename", "const char *"}, {"flags", "int"}, {"mode", "umode_t"}.
using SyscallArgField = kernel::SyscallField;

// Which arguments the tracer should read as user strings at entry: bit i set for argument i.
// perf names the fields it would print as path names; argv of execve is read as a string list.
uint32_t string_argument_mask(std::string_view syscall, std::span<const SyscallArgField> fields);

struct SyscallCall {
  std::string_view syscall;  // perf's name: "openat", "newfstatat"
  std::span<const SyscallArgField> fields;
  std::array<uint64_t, 6> args{};
  // The strings read at entry, by argument index; for execve's argv the elements separated by
  // '\0'. nullopt where nothing was read (or the read faulted).
  std::array<std::optional<std::string_view>, 6> strings;
  int64_t ret = 0;
};

// What the printer may ask about the traced machine.
struct SyscallContext {
  // The path of a process's open file descriptor, or "" when unknown.
  std::function<std::string_view(pid_t pid, int fd)> fd_path;
  // The comm of a thread, or "" when unknown (for returns that are pids: "= 1279 (ls)"; perf
  // prints nothing after "= " for a pid whose thread it does not know).
  std::function<std::string_view(pid_t tid)> comm_of;
};

// What the lines of one syscall take from its name and argument fields, worked out once: perf's
// table entry for it, each argument's format. A tracer keeps one per syscall and passes it with
// each call of that syscall (the call's `syscall` and `fields` must be the ones it was made from);
// the functions without it work it out for every call.
class SyscallLineFormat {
 public:
  SyscallLineFormat(std::string_view syscall, std::span<const SyscallArgField> fields);

  // The arguments printed: the fields, at most 6.
  size_t arguments() const { return arguments_; }
  // How argument `index` prints, when the tracer read no string for it.
  ArgFormat argument(size_t index) const { return formats_[index]; }
  // Whether argument `index` prints when it is zero.
  bool prints_zero(size_t index) const { return (zero_mask_ & (1u << index)) != 0; }
  // Whether argument `index` is execve's argv, read as a list of strings.
  bool string_list(size_t index) const { return (list_mask_ & (1u << index)) != 0; }
  // exit and exit_group: printed at entry, "= ?".
  bool no_return() const { return no_return_; }
  // perf's return flags: a pid (with its comm), 0 as "0 (Timeout)", an address in hex.
  bool returns_pid() const { return returns_pid_; }
  bool returns_timeout() const { return returns_timeout_; }
  bool returns_hex() const { return returns_hex_; }

 private:
  std::array<ArgFormat, 6> formats_{};
  uint8_t arguments_ = 0;
  uint8_t zero_mask_ = 0;
  uint8_t list_mask_ = 0;
  bool no_return_ = false;
  bool returns_pid_ = false;
  bool returns_timeout_ = false;
  bool returns_hex_ = false;
};

// Appends "name(arg: value, ...)" (perf skips most zero-valued arguments).
void append_syscall_call(std::string& out, const SyscallCall& call, pid_t pid, const SyscallContext& context);
// Appends the return value, what perf prints after "= ": "3", "0x7fbf73e26000", "1279 (ls)",
// "-1 ENOENT (No such file or directory)", "?" for exit and exit_group.
void append_syscall_return(std::string& out, const SyscallCall& call, const SyscallContext& context);
// The same, for the thread group `pid`: fcntl's F_DUPFD return prints with the fd's path.
void append_syscall_return(std::string& out, const SyscallCall& call, pid_t pid,
                           const SyscallContext& context);

struct SyscallLinePrefix {
  bool show_time = true;  // relative ms since the first event (or -T: absolute)
  double time_ms = 0;
  std::optional<double> duration_ms;  // nullopt prints perf's "(         )"
  bool show_comm = true;              // --comm/--no-comm and perf's rule for one-thread traces
  std::string_view comm;
  pid_t tid = 0;
  // perf prints neither comm nor tid when it traces a single thread (no --comm to turn them on).
  bool show_tid = true;
  // false: perf's "         ? " in place of the time, for a return whose entry was not seen.
  bool time_known = true;
};

// Appends a whole line: prefix, call, padding to perf's column, return, '\n'. exit and
// exit_group print at entry, as perf does: no duration, "= ?".
void append_syscall_line(std::string& out, const SyscallLinePrefix& prefix, const SyscallCall& call,
                         pid_t pid, const SyscallContext& context);
// The same with the syscall's format worked out beforehand.
void append_syscall_line(std::string& out, const SyscallLinePrefix& prefix, const SyscallCall& call,
                         const SyscallLineFormat& format, pid_t pid, const SyscallContext& context);

// perf's line for a return whose entry it did not see (the workload's first execve):
// "         ? (         ): ls/2127  ... [continued]: execve())    = 0". Only call.syscall and
// call.ret are used.
void append_syscall_continued_line(std::string& out, const SyscallLinePrefix& prefix, const SyscallCall& call,
                                   pid_t pid, const SyscallContext& context);
// The same with the syscall's format worked out beforehand (only its name's part is used).
void append_syscall_continued_line(std::string& out, const SyscallLinePrefix& prefix, const SyscallCall& call,
                                   const SyscallLineFormat& format, pid_t pid, const SyscallContext& context);

// perf's line for an entry whose return another line comes before: the call, padded, then " ...";
// the return follows later as a continued line. Never with a duration.
void append_syscall_interrupted_line(std::string& out, const SyscallLinePrefix& prefix,
                                     const SyscallCall& call, pid_t pid, const SyscallContext& context);
// The same with the syscall's format worked out beforehand.
void append_syscall_interrupted_line(std::string& out, const SyscallLinePrefix& prefix,
                                     const SyscallCall& call, const SyscallLineFormat& format, pid_t pid,
                                     const SyscallContext& context);

}  // namespace sonde::output
