#include "output/trace/syscall_line.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "output/trace/syscall_arg_beautifiers.hpp"

namespace sonde::output {
namespace {

using F = ArgFormat;
constexpr F kByType = F::ByType;

enum FormatFlags : uint8_t { kErrpid = 1, kTimeout = 2, kHexret = 4 };

// perf 6.1's syscall_fmts table for x86_64: the arguments it beautifies by position (the rest go
// by type and name) and how it prints the return. Sorted by name.
struct SyscallFormat {
  std::string_view name;
  uint8_t flags = 0;
  std::array<ArgFormat, 6> args{};
};

constexpr SyscallFormat kFormats[] = {
    {"access", 0, {kByType, F::AccessMode}},
    {"arch_prctl", 0, {F::ArchPrctlCode, F::Pointer}},
    {"bind", 0, {F::Int, F::Hex, F::Int}},  // the sockaddr prints as hex without BPF augmentation
    {"bpf", 0, {F::BpfCmd}},
    {"brk", kHexret, {F::Pointer}},
    {"clock_gettime", 0, {F::ClockId}},
    {"clone", kErrpid, {F::CloneFlags, F::Hex, F::Hex, F::Hex, F::Hex}},
    {"close", 0, {F::Fd}},
    {"connect", 0, {F::Int, F::Hex, F::Int}},
    {"epoll_ctl", 0, {kByType, F::EpollCtlOp}},
    {"eventfd2", 0, {kByType, F::EventfdFlags}},
    {"fchmodat", 0, {F::FdAt}},
    {"fchownat", 0, {F::FdAt}},
    {"fcntl", 0, {kByType, F::FcntlCmd, F::FcntlArg}},
    {"flock", 0, {kByType, F::Flock}},
    {"fsconfig", 0, {kByType, F::FsconfigCmd}},
    {"fsmount", 0, {kByType, F::FsmountFlags}},
    {"fspick", 0, {F::FdAt, F::Filename}},
    {"futex", 0, {kByType, F::FutexOp, kByType, kByType, kByType, F::FutexVal3}},
    {"futimesat", 0, {F::FdAt}},
    {"getitimer", 0, {F::Itimer}},
    {"getpgid", kErrpid},  // perf 6.1 lists getpid too, out of order: its bsearch never finds it
    {"getppid", kErrpid},
    {"getrandom", 0, {kByType, kByType, F::GetrandomFlags}},
    {"getrlimit", 0, {F::Rlimit}},
    {"getsockopt", 0, {kByType, F::SocketLevel}},
    {"gettid", kErrpid},
    {"ioctl", 0, {kByType, F::IoctlCmd, F::Hex}},
    {"kcmp", 0, {F::Pid, F::Pid, F::KcmpType, F::KcmpIdx, F::KcmpIdx}},
    {"keyctl", 0, {F::KeyctlOption}},
    {"kill", 0, {kByType, F::Signal}},
    {"linkat", 0, {F::FdAt}},
    {"lseek", 0, {kByType, kByType, F::Whence}},
    {"madvise", 0, {F::Hex, kByType, F::MadviseBehavior}},
    {"mkdirat", 0, {F::FdAt}},
    {"mknodat", 0, {F::FdAt}},
    {"mmap", kHexret, {kByType, kByType, F::MmapProt, F::MmapFlags, kByType, F::Hex}},
    {"mount", 0, {F::Filename, kByType, kByType, F::MountFlags}},
    {"move_mount", 0, {F::FdAt, F::Filename, F::FdAt, F::Filename}},
    {"mprotect", 0, {F::Hex, kByType, F::MmapProt}},
    {"mq_unlink", 0, {F::Filename}},
    {"mremap", kHexret, {kByType, kByType, kByType, F::MremapFlags}},
    {"name_to_handle_at", 0, {F::FdAt}},
    {"newfstatat", 0, {F::FdAt}},
    {"open", 0, {kByType, F::OpenFlags}},
    {"open_by_handle_at", 0, {F::FdAt, kByType, F::OpenFlags}},
    {"openat", 0, {F::FdAt, kByType, F::OpenFlags}},
    {"perf_event_open", 0, {kByType, kByType, F::Int, F::Fd, F::PerfFlags}},
    {"pipe2", 0, {kByType, F::PipeFlags}},
    {"pkey_alloc", 0, {kByType, F::PkeyAccessRights}},
    {"pkey_free", 0, {F::Int}},
    {"pkey_mprotect", 0, {F::Hex, kByType, F::MmapProt, F::Int}},
    {"poll", kTimeout},
    {"ppoll", kTimeout},
    {"prctl", 0, {F::PrctlOption, F::PrctlArg2, F::PrctlArg3}},
    {"prlimit64", 0, {kByType, F::Rlimit}},
    {"readlinkat", 0, {F::FdAt}},
    {"recvfrom", 0, {kByType, kByType, kByType, F::MsgFlags}},
    {"recvmmsg", 0, {kByType, kByType, kByType, F::MsgFlags}},
    {"recvmsg", 0, {kByType, kByType, F::MsgFlags}},
    {"renameat", 0, {F::FdAt, kByType, F::FdAt}},
    {"renameat2", 0, {F::FdAt, kByType, F::FdAt, kByType, F::RenameatFlags}},
    {"rt_sigaction", 0, {F::Signal}},
    {"rt_sigprocmask", 0, {F::SigHow}},
    {"rt_sigqueueinfo", 0, {kByType, F::Signal}},
    {"rt_tgsigqueueinfo", 0, {kByType, kByType, F::Signal}},
    {"sched_setscheduler", 0, {kByType, F::SchedPolicy}},
    {"seccomp", 0, {F::SeccompOp, F::SeccompFlags}},
    {"select", kTimeout},
    {"sendmmsg", 0, {kByType, kByType, kByType, F::MsgFlags}},
    {"sendmsg", 0, {kByType, kByType, F::MsgFlags}},
    {"sendto", 0, {kByType, kByType, kByType, F::MsgFlags, F::Hex}},
    {"set_tid_address", kErrpid},
    {"setitimer", 0, {F::Itimer}},
    {"setrlimit", 0, {F::Rlimit}},
    {"setsockopt", 0, {kByType, F::SocketLevel}},
    {"socket", 0, {F::SocketFamily, F::SocketType, F::SocketProtocol}},
    {"socketpair", 0, {F::SocketFamily, F::SocketType, F::SocketProtocol}},
    {"statx", 0, {F::FdAt, kByType, F::StatxFlags, F::StatxMask}},
    {"swapoff", 0, {F::Filename}},
    {"swapon", 0, {F::Filename}},
    {"symlinkat", 0, {F::FdAt}},  // perf 6.1 takes the target string for a dfd
    {"sync_file_range", 0, {kByType, kByType, kByType, F::SyncFileRangeFlags}},
    {"tgkill", 0, {kByType, kByType, F::Signal}},
    {"tkill", 0, {kByType, F::Signal}},
    {"umount2", 0, {F::Filename}},
    {"unlinkat", 0, {F::FdAt}},
    {"utimensat", 0, {F::FdAt}},
    {"wait4", kErrpid, {kByType, kByType, F::WaitidOptions}},
    {"waitid", kErrpid, {kByType, kByType, kByType, F::WaitidOptions}},
};
static_assert(std::ranges::is_sorted(kFormats, {}, &SyscallFormat::name));

const SyscallFormat* find_format(std::string_view syscall) {
  const auto* found = std::ranges::lower_bound(kFormats, syscall, {}, &SyscallFormat::name);
  return found != std::end(kFormats) && found->name == syscall ? found : nullptr;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// perf's syscall_arg_fmt__init_array: arguments its table leaves alone go by type and name.
ArgFormat argument_format(const SyscallFormat* format, size_t index, const SyscallArgField& field) {
  if (format != nullptr && format->args[index] != kByType) return format->args[index];
  const std::string_view type = trimmed(field.type), name = field.name;
  if (type == "const char *" && (name.ends_with("name") || name.find("path") != std::string_view::npos)) {
    return F::Filename;
  }
  if (type.ends_with('*') || name.find("addr") != std::string_view::npos) return F::Pointer;
  if (type == "pid_t") return F::Pid;
  if (type == "umode_t") return F::Mode;
  if ((type == "int" || type == "unsigned int" || type == "long") && name.ends_with("fd")) return F::Fd;
  return F::Long;
}

bool is_argv(const SyscallArgField& field) {
  return field.name == "argv" && trimmed(field.type) == "const char *const *";
}

bool is_exit(std::string_view syscall) { return syscall == "exit_group" || syscall == "exit"; }

// A C string literal: quotes, backslashes and control characters escaped, other bytes as they are.
void append_quoted(std::string& out, std::string_view text) {
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          fmt::format_to(std::back_inserter(out), "\\{:03o}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// execve's argv as read at entry: elements each followed by '\0' (the last one's may be missing).
void append_string_list(std::string& out, std::string_view elements) {
  out += '[';
  bool first = true;
  while (!elements.empty()) {
    const size_t end = std::min(elements.find('\0'), elements.size());
    if (!first) out += ", ";
    append_quoted(out, elements.substr(0, end));
    first = false;
    elements.remove_prefix(std::min(end + 1, elements.size()));
  }
  out += ']';
}

// How the return prints when fcntl's cmd says (perf's ret_scnprintf).
enum class ReturnFormat : uint8_t { Plain, OpenFlags, FdFlags, Fd, Pid, Lease };

int32_t low_int(uint64_t value) { return static_cast<int32_t>(static_cast<uint32_t>(value)); }

std::string fd_text(int32_t fd, pid_t pid, const SyscallContext& context) {
  const std::string_view path = fd >= 0 && context.fd_path ? context.fd_path(pid, fd) : "";
  return path.empty() ? fmt::format("{}", fd) : fmt::format("{}<{}>", fd, path);
}

std::string pid_text(int32_t pid, const SyscallContext& context) {
  const std::string_view comm = pid > 0 && context.comm_of ? context.comm_of(pid) : "";
  return comm.empty() ? fmt::format("{}", pid) : fmt::format("{} ({})", pid, comm);
}

// F_SETFD's argument and F_GETFD's return: perf 6.1 has the test backwards.
std::string fd_flags(uint64_t value) { return value != 0 ? "0" : "CLOEXEC"; }

// fcntl's cmd: what the return is, and whether the third argument is used.
std::string fcntl_cmd(uint64_t cmd, uint32_t& skipped, ReturnFormat& return_format) {
  struct Effect {
    uint64_t cmd;
    ReturnFormat returns;
    bool arg_unused;
  };
  constexpr Effect effects[] = {{3, ReturnFormat::OpenFlags, true},  // F_GETFL
                                {1, ReturnFormat::FdFlags, true},    // F_GETFD
                                {0, ReturnFormat::Fd, false},        // F_DUPFD
                                {1030, ReturnFormat::Fd, false},     // F_DUPFD_CLOEXEC
                                {9, ReturnFormat::Pid, true},        // F_GETOWN
                                {1025, ReturnFormat::Lease, true},   // F_GETLEASE
                                {11, ReturnFormat::Plain, true},     // F_GETSIG
                                {1034, ReturnFormat::Plain, true}};  // F_GET_SEALS
  for (const Effect& effect : effects) {
    if (effect.cmd != cmd) continue;
    return_format = effect.returns;
    if (effect.arg_unused) skipped |= 1u << 2;
  }
  return fcntl_cmd_name(low_int(cmd));
}

std::string fcntl_arg(const SyscallCall& call, pid_t pid, const SyscallContext& context) {
  const uint64_t value = call.args[2];
  const int32_t cmd = low_int(call.args[1]);
  if (cmd == 0) return fd_text(low_int(value), pid, context);          // F_DUPFD
  if (cmd == 2) return fd_flags(value);                                // F_SETFD
  if (cmd == 4) return open_flags_text(static_cast<uint32_t>(value));  // F_SETFL
  if (cmd == 8) return pid_text(low_int(value), context);              // F_SETOWN
  if (cmd == 1024) return lease_name(low_int(value));                  // F_SETLEASE
  // Locks, owners and hints point at structures perf does not read.
  constexpr int32_t pointer_cmds[] = {5, 6, 7, 36, 37, 38, 15, 16, 1035, 1036, 1037, 1038};
  if (std::ranges::find(pointer_cmds, cmd) != std::end(pointer_cmds)) return c_hex(value);
  return fmt::format("{}", static_cast<int64_t>(value));
}

// kcmp's idx1 and idx2: fds of pid1 and pid2 when the type is KCMP_FILE.
std::string kcmp_idx(const SyscallCall& call, size_t index, const SyscallContext& context) {
  const uint64_t value = call.args[index];
  if (low_int(call.args[2]) != 0) return fmt::format("{}", static_cast<int64_t>(value));
  return fd_text(low_int(value), low_int(call.args[index == 3 ? 0 : 1]), context);
}

// One argument's value: the formats that look at the traced machine are here, the others are
// the beautifiers'.
void put_argument(PerfText& text, ArgFormat format, const SyscallCall& call, size_t index, pid_t pid,
                  const SyscallContext& context, uint32_t& skipped, ReturnFormat& return_format) {
  const int32_t number = low_int(call.args[index]);
  switch (format) {
    case ArgFormat::Fd:
      return text.put(fd_text(number, pid, context));
    case ArgFormat::FdAt:
      return text.put(number == -100 ? "CWD" : fd_text(number, pid, context));
    case ArgFormat::Pid:
      return text.put(pid_text(number, context));
    case ArgFormat::FcntlCmd:
      return text.put(fcntl_cmd(call.args[index], skipped, return_format));
    case ArgFormat::FcntlArg:
      return text.put(fcntl_arg(call, pid, context));
    case ArgFormat::KcmpIdx:
      return text.put(kcmp_idx(call, index, context));
    default:
      return put_value(text, format, call.args, index, skipped);
  }
}

// The arguments as perf's syscall__scnprintf_args prints them; returns what fcntl's cmd chose
// for the return value.
ReturnFormat append_arguments(std::string& out, const SyscallCall& call, pid_t pid,
                              const SyscallContext& context) {
  const SyscallFormat* format = find_format(call.syscall);
  uint32_t skipped = 0;  // perf's arg->mask: arguments a beautifier said not to print
  ReturnFormat return_format = ReturnFormat::Plain;
  PerfText text(out);
  const size_t start = text.cursor();
  const size_t count = std::min<size_t>(call.fields.size(), 6);
  for (size_t index = 0; index < count; ++index) {
    if ((skipped & (1u << index)) != 0) continue;
    const SyscallArgField& field = call.fields[index];
    const ArgFormat arg_format = argument_format(format, index, field);
    uint64_t value = call.args[index];
    if (arg_format == F::MountFlags) value = mount_flags_without_magic(value);
    if (value == 0 && !prints_zero(arg_format)) continue;
    text.put(text.cursor() != start ? ", " : "");
    text.put(fmt::format("{}: ", field.name));
    if (call.strings[index]) {  // read by the tracer: a string where perf 6.1 prints the pointer
      std::string quoted;
      if (is_argv(field)) {
        append_string_list(quoted, *call.strings[index]);
      } else {
        append_quoted(quoted, *call.strings[index]);
      }
      text.put(quoted);
    } else {
      put_argument(text, arg_format, call, index, pid, context, skipped, return_format);
    }
  }
  return return_format;
}

// An error return's "NAME (description)" for -ret, as perf 6.1 prints it.
std::string errno_text(int error) {
  const char* name = strerrorname_np(error);
  const char* description = strerrordesc_np(error);
  // perf's str_error_r reports glibc's EINVAL from strerror_r for numbers it has no text for.
  return fmt::format("{} ({})", name != nullptr ? name : "(unknown)",
                     description != nullptr
                         ? std::string(description)
                         : fmt::format("INTERNAL ERROR: strerror_r({}, [buf], 128)=22", error));
}

std::string return_value(const SyscallCall& call, pid_t pid, const SyscallContext& context,
                         ReturnFormat return_format) {
  if (is_exit(call.syscall)) return "?";
  const SyscallFormat* format = find_format(call.syscall);
  const int64_t ret = call.ret;
  if (ret < 0) return "-1 " + errno_text(static_cast<int>(0 - static_cast<uint64_t>(ret)));
  const uint8_t flags = format != nullptr ? format->flags : 0;
  if (ret == 0 && (flags & kTimeout) != 0) return "0 (Timeout)";
  switch (return_format) {
    case ReturnFormat::OpenFlags:
      return open_flags_text(static_cast<uint32_t>(ret));
    case ReturnFormat::FdFlags:
      return fd_flags(static_cast<uint64_t>(ret));
    case ReturnFormat::Fd:
      return fd_text(low_int(static_cast<uint64_t>(ret)), pid, context);
    case ReturnFormat::Pid:
      return pid_text(low_int(static_cast<uint64_t>(ret)), context);
    case ReturnFormat::Lease:
      return lease_name(low_int(static_cast<uint64_t>(ret)));
    case ReturnFormat::Plain:
      break;
  }
  if ((flags & kHexret) != 0) return c_hex(static_cast<uint64_t>(ret));
  if ((flags & kErrpid) != 0) {
    // perf 6.1 prints nothing at all for a pid it has no thread for (the 0 a child gets from
    // clone, a parent outside the trace); the number is worth keeping, so sonde prints it bare.
    const std::string_view comm = ret > 0 && context.comm_of ? context.comm_of(static_cast<pid_t>(ret)) : "";
    return comm.empty() ? fmt::format("{}", ret) : fmt::format("{} ({})", ret, comm);
  }
  return fmt::format("{}", ret);
}

void append_prefix(std::string& out, const SyscallLinePrefix& prefix, bool force_no_duration = false) {
  auto it = std::back_inserter(out);
  if (prefix.show_time) {
    if (prefix.time_known) {
      fmt::format_to(it, "{:10.3f} ", prefix.time_ms);
    } else {
      out += "         ? ";
    }
  }
  if (prefix.duration_ms && !force_no_duration) {
    fmt::format_to(it, "({:6.3f} ms): ", *prefix.duration_ms);
  } else {
    out += "(         ): ";
  }
  if (!prefix.show_tid) return;
  if (prefix.show_comm) fmt::format_to(it, "{}/", prefix.comm.substr(0, 14));
  fmt::format_to(it, "{} ", prefix.tid);
}

// perf pads the call to its 70-column argument alignment, with at least one space, then "= ".
void append_return(std::string& out, size_t call_length, std::string_view value) {
  out.append(call_length < 70 ? 70 - call_length : 1, ' ');
  out += "= ";
  out += value;
  out += '\n';
}

}  // namespace

uint32_t string_argument_mask(std::string_view syscall, std::span<const SyscallArgField> fields) {
  const SyscallFormat* format = find_format(syscall);
  uint32_t mask = 0;
  for (size_t index = 0; index < std::min<size_t>(fields.size(), 6); ++index) {
    if (argument_format(format, index, fields[index]) == F::Filename || is_argv(fields[index])) {
      mask |= 1u << index;
    }
  }
  return mask;
}

void append_syscall_call(std::string& out, const SyscallCall& call, pid_t pid,
                         const SyscallContext& context) {
  out += call.syscall;
  out += '(';
  append_arguments(out, call, pid, context);
  out += ')';
}

void append_syscall_return(std::string& out, const SyscallCall& call, const SyscallContext& context) {
  append_syscall_return(out, call, 0, context);
}

void append_syscall_return(std::string& out, const SyscallCall& call, pid_t pid,
                           const SyscallContext& context) {
  // Only fcntl's cmd changes how a return prints; its other arguments need not be printed here.
  uint32_t skipped = 0;
  ReturnFormat return_format = ReturnFormat::Plain;
  if (call.syscall == "fcntl" && call.fields.size() > 1) fcntl_cmd(call.args[1], skipped, return_format);
  out += return_value(call, pid, context, return_format);
}

void append_syscall_line(std::string& out, const SyscallLinePrefix& prefix, const SyscallCall& call,
                         pid_t pid, const SyscallContext& context) {
  append_prefix(out, prefix, is_exit(call.syscall));
  const size_t call_start = out.size();
  out += call.syscall;
  out += '(';
  const ReturnFormat return_format = append_arguments(out, call, pid, context);
  out += ')';
  const size_t call_length = out.size() - call_start;
  append_return(out, call_length, return_value(call, pid, context, return_format));
}

void append_syscall_continued_line(std::string& out, const SyscallLinePrefix& prefix, const SyscallCall& call,
                                   pid_t pid, const SyscallContext& context) {
  append_prefix(out, prefix);
  const size_t call_start = out.size();
  fmt::format_to(std::back_inserter(out), " ... [continued]: {}())", call.syscall);
  const size_t call_length = out.size() - call_start;
  append_return(out, call_length, return_value(call, pid, context, ReturnFormat::Plain));
}

void append_syscall_interrupted_line(std::string& out, const SyscallLinePrefix& prefix,
                                     const SyscallCall& call, pid_t pid, const SyscallContext& context) {
  append_prefix(out, prefix, true);
  const size_t call_start = out.size();
  append_syscall_call(out, call, pid, context);
  const size_t call_length = out.size() - call_start;
  if (call_length < 66) out.append(66 - call_length, ' ');
  out += " ...\n";
}

}  // namespace sonde::output
