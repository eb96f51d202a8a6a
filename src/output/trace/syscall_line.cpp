#include "output/trace/syscall_line.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>

#include "output/trace/syscall_arg_beautifiers.hpp"

namespace sonde::output {
namespace {

using namespace std::string_view_literals;

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
  size_t plain = 0;  // where the bytes not yet appended, all printed as they are, start
  for (size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f && c != '"' && c != '\\') continue;
    out.append(text.data() + plain, at - plain);
    plain = at + 1;
    switch (c) {
      case '"':
        out += "\\\""sv;
        break;
      case '\\':
        out += "\\\\"sv;
        break;
      case '\a':
        out += "\\a"sv;
        break;
      case '\b':
        out += "\\b"sv;
        break;
      case '\f':
        out += "\\f"sv;
        break;
      case '\n':
        out += "\\n"sv;
        break;
      case '\r':
        out += "\\r"sv;
        break;
      case '\t':
        out += "\\t"sv;
        break;
      case '\v':
        out += "\\v"sv;
        break;
      default: {  // "\ooo"
        const char octal[] = {'\\', static_cast<char>('0' + (byte >> 6)),
                              static_cast<char>('0' + ((byte >> 3) & 7)),
                              static_cast<char>('0' + (byte & 7))};
        out.append(octal, sizeof octal);
      }
    }
  }
  out.append(text.data() + plain, text.size() - plain);
  out += '"';
}

// execve's argv as read at entry: elements each followed by '\0' (the last one's may be missing).
void append_string_list(std::string& out, std::string_view elements) {
  out += '[';
  bool first = true;
  while (!elements.empty()) {
    const size_t end = std::min(elements.find('\0'), elements.size());
    if (!first) out += ", "sv;
    append_quoted(out, elements.substr(0, end));
    first = false;
    elements.remove_prefix(std::min(end + 1, elements.size()));
  }
  out += ']';
}

// How the return prints when fcntl's cmd says (perf's ret_scnprintf).
enum class ReturnFormat : uint8_t { Plain, OpenFlags, FdFlags, Fd, Pid, Lease };

void append_fd(std::string& out, int32_t fd, pid_t pid, const SyscallContext& context) {
  const std::string_view path = fd >= 0 && context.fd_path ? context.fd_path(pid, fd) : "";
  append_decimal(out, fd);
  if (path.empty()) return;
  out += '<';
  out += path;
  out += '>';
}

// A number with its thread's comm: "1279 (ls)", or the number alone.
void append_with_comm(std::string& out, int64_t number, std::string_view comm) {
  append_decimal(out, number);
  if (comm.empty()) return;
  out += " ("sv;
  out += comm;
  out += ')';
}

void append_pid(std::string& out, int32_t pid, const SyscallContext& context) {
  append_with_comm(out, pid, pid > 0 && context.comm_of ? context.comm_of(pid) : "");
}

// F_SETFD's argument and F_GETFD's return: perf 6.1 has the test backwards.
std::string_view fd_flags(uint64_t value) { return value != 0 ? "0" : "CLOEXEC"; }

// fcntl's cmd: what the return is, and whether the third argument is used.
void fcntl_effect(uint64_t cmd, uint32_t& skipped, ReturnFormat& return_format) {
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
}

void append_fcntl_arg(std::string& out, const SyscallCall& call, pid_t pid, const SyscallContext& context) {
  const uint64_t value = call.args[2];
  const int32_t cmd = low_int(call.args[1]);
  if (cmd == 0) return append_fd(out, low_int(value), pid, context);          // F_DUPFD
  if (cmd == 2) return void(out += fd_flags(value));                          // F_SETFD
  if (cmd == 4) return append_open_flags(out, static_cast<uint32_t>(value));  // F_SETFL
  if (cmd == 8) return append_pid(out, low_int(value), context);              // F_SETOWN
  if (cmd == 1024) return append_lease_name(out, low_int(value));             // F_SETLEASE
  // Locks, owners and hints point at structures perf does not read.
  constexpr int32_t pointer_cmds[] = {5, 6, 7, 36, 37, 38, 15, 16, 1035, 1036, 1037, 1038};
  if (std::ranges::find(pointer_cmds, cmd) != std::end(pointer_cmds)) return append_c_hex(out, value);
  append_decimal(out, static_cast<int64_t>(value));
}

// kcmp's idx1 and idx2: fds of pid1 and pid2 when the type is KCMP_FILE.
void append_kcmp_idx(std::string& out, const SyscallCall& call, size_t index, const SyscallContext& context) {
  const uint64_t value = call.args[index];
  if (low_int(call.args[2]) != 0) return append_decimal(out, static_cast<int64_t>(value));
  append_fd(out, low_int(value), low_int(call.args[index == 3 ? 0 : 1]), context);
}

// One argument's value: the formats that look at the traced machine are here, the others are
// the beautifiers'.
void put_argument(PerfText& text, ArgFormat format, const SyscallCall& call, size_t index, pid_t pid,
                  const SyscallContext& context, uint32_t& skipped, ReturnFormat& return_format) {
  const int32_t number = low_int(call.args[index]);
  switch (format) {
    case ArgFormat::Fd:
      append_fd(text.at_cursor(), number, pid, context);
      break;
    case ArgFormat::FdAt:
      if (number == -100) {
        text.at_cursor() += "CWD"sv;
      } else {
        append_fd(text.at_cursor(), number, pid, context);
      }
      break;
    case ArgFormat::Pid:
      append_pid(text.at_cursor(), number, context);
      break;
    case ArgFormat::FcntlCmd:
      fcntl_effect(call.args[index], skipped, return_format);
      append_fcntl_cmd_name(text.at_cursor(), number);
      break;
    case ArgFormat::FcntlArg:
      append_fcntl_arg(text.at_cursor(), call, pid, context);
      break;
    case ArgFormat::KcmpIdx:
      append_kcmp_idx(text.at_cursor(), call, index, context);
      break;
    default:
      return put_value(text, format, call.args, index, skipped);
  }
  text.advance();
}

// The arguments as perf's syscall__scnprintf_args prints them; returns what fcntl's cmd chose
// for the return value.
ReturnFormat append_arguments(std::string& out, const SyscallCall& call, const SyscallLineFormat& format,
                              pid_t pid, const SyscallContext& context) {
  uint32_t skipped = 0;  // perf's arg->mask: arguments a beautifier said not to print
  ReturnFormat return_format = ReturnFormat::Plain;
  PerfText text(out);
  const size_t start = text.cursor();
  const size_t count = std::min(format.arguments(), call.fields.size());
  for (size_t index = 0; index < count; ++index) {
    if ((skipped & (1u << index)) != 0) continue;
    const ArgFormat arg_format = format.argument(index);
    uint64_t value = call.args[index];
    if (arg_format == F::MountFlags) value = mount_flags_without_magic(value);
    if (value == 0 && !format.prints_zero(index)) continue;
    const bool first = text.cursor() == start;
    std::string& line = text.at_cursor();
    if (!first) line += ", "sv;
    line += call.fields[index].name;
    line += ": "sv;
    if (call.strings[index]) {  // read by the tracer: a string where perf 6.1 prints the pointer
      if (format.string_list(index)) {
        append_string_list(line, *call.strings[index]);
      } else {
        append_quoted(line, *call.strings[index]);
      }
      text.advance();
    } else {
      text.advance();
      put_argument(text, arg_format, call, index, pid, context, skipped, return_format);
    }
  }
  return return_format;
}

// An error return's "NAME (description)" for -ret, as perf 6.1 prints it.
void append_errno(std::string& out, int error) {
  const char* name = strerrorname_np(error);
  const char* description = strerrordesc_np(error);
  out += name != nullptr ? name : "(unknown)";
  out += " ("sv;
  if (description != nullptr) {
    out += description;
  } else {  // perf's str_error_r reports glibc's EINVAL from strerror_r for numbers it has no text for
    out += "INTERNAL ERROR: strerror_r("sv;
    append_decimal(out, error);
    out += ", [buf], 128)=22"sv;
  }
  out += ')';
}

void append_return_value(std::string& out, const SyscallCall& call, const SyscallLineFormat& format,
                         pid_t pid, const SyscallContext& context, ReturnFormat return_format) {
  if (format.no_return()) return void(out += '?');
  const int64_t ret = call.ret;
  if (ret < 0) {
    out += "-1 "sv;
    return append_errno(out, static_cast<int>(0 - static_cast<uint64_t>(ret)));
  }
  if (ret == 0 && format.returns_timeout()) return void(out += "0 (Timeout)"sv);
  switch (return_format) {
    case ReturnFormat::OpenFlags:
      return append_open_flags(out, static_cast<uint32_t>(ret));
    case ReturnFormat::FdFlags:
      return void(out += fd_flags(static_cast<uint64_t>(ret)));
    case ReturnFormat::Fd:
      return append_fd(out, low_int(static_cast<uint64_t>(ret)), pid, context);
    case ReturnFormat::Pid:
      return append_pid(out, low_int(static_cast<uint64_t>(ret)), context);
    case ReturnFormat::Lease:
      return append_lease_name(out, low_int(static_cast<uint64_t>(ret)));
    case ReturnFormat::Plain:
      break;
  }
  if (format.returns_hex()) return append_c_hex(out, static_cast<uint64_t>(ret));
  if (format.returns_pid()) {
    // perf 6.1 prints nothing at all for a pid it has no thread for (the 0 a child gets from
    // clone live, a parent outside the trace); the number is worth keeping, so sonde prints it
    // bare. Reading a file perf knows pid 0 as "swapper": comm_of says so there.
    return append_with_comm(out, ret,
                            ret >= 0 && context.comm_of ? context.comm_of(static_cast<pid_t>(ret)) : "");
  }
  append_decimal(out, ret);
}

// fmt's "{:W.3f}" of `value` written at `at`, with the digits worked out here from the double's
// exact value rounded to the nearest thousandth; the end of what was written, or nullptr for a
// value exactly halfway, one of 2^52 or more and the non-finite ones, which are left to fmt.
char* put_fixed3(char* at, double value, size_t width) {
  const auto bits = std::bit_cast<uint64_t>(value);
  const auto exponent = static_cast<int>((bits >> 52) & 0x7ff);
  const int shift = 1075 - exponent;  // |value| = (mantissa | 2^52) / 2^shift
  uint64_t thousandths = 0;           // |value| * 1000, rounded; 0 for zeros and subnormals
  if (exponent != 0) {
    if (shift <= 0) return nullptr;
    if (shift < 64) {
      const uint64_t scaled = ((bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52)) * 1000;  // < 2^63
      const uint64_t rest = scaled & ((uint64_t{1} << shift) - 1), half = uint64_t{1} << (shift - 1);
      if (rest == half) return nullptr;
      thousandths = (scaled >> shift) + (rest > half ? 1 : 0);
    }  // else below 2^-11: under half a thousandth
  }
  // Right to left into `text`, two digits at a time.
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  char text[24];
  char* const end = std::end(text);
  char* start = end - 4;
  const auto fraction = static_cast<unsigned>(thousandths % 1000);
  start[0] = '.';
  start[1] = static_cast<char>('0' + fraction / 100);
  std::memcpy(start + 2, kPairs + 2 * (fraction % 100), 2);
  uint64_t whole = thousandths / 1000;
  while (whole >= 100) {
    start -= 2;
    std::memcpy(start, kPairs + 2 * (whole % 100), 2);
    whole /= 100;
  }
  if (whole >= 10) {
    start -= 2;
    std::memcpy(start, kPairs + 2 * whole, 2);
  } else {
    *--start = static_cast<char>('0' + whole);
  }
  if ((bits >> 63) != 0) *--start = '-';
  const auto length = static_cast<size_t>(end - start);
  if (length < width) {
    std::memset(at, ' ', width - length);
    at += width - length;
  }
  std::memcpy(at, start, length);
  return at + length;
}

// "TIME (DURATION ms): COMM/TID ", with fmt's "{:10.3f}" and "{:6.3f}" of the times.
void append_prefix(std::string& out, const SyscallLinePrefix& prefix, bool force_no_duration = false) {
  const bool duration = prefix.duration_ms && !force_no_duration;
  // At most 22 bytes of time, 28 of duration, 15 of comm and 12 of tid; fmt writes the times
  // put_fixed3 leaves straight to `out`.
  char text[96];
  char* at = text;
  const auto put = [&at](std::string_view piece) {
    std::memcpy(at, piece.data(), piece.size());
    at += piece.size();
  };
  if (prefix.show_time) {
    if (!prefix.time_known) {
      put("         ? "sv);
    } else if (char* end = put_fixed3(at, prefix.time_ms, 10); end != nullptr) {
      at = end;
      *at++ = ' ';
    } else {
      out.append(text, at);
      fmt::format_to(std::back_inserter(out), "{:10.3f} ", prefix.time_ms);
      at = text;
    }
  }
  if (!duration) {
    put("(         ): "sv);
  } else {
    *at++ = '(';
    if (char* end = put_fixed3(at, *prefix.duration_ms, 6); end != nullptr) {
      at = end;
    } else {
      out.append(text, at);
      fmt::format_to(std::back_inserter(out), "{:6.3f}", *prefix.duration_ms);
      at = text;
    }
    put(" ms): "sv);
  }
  if (prefix.show_tid) {
    if (prefix.show_comm) {
      put(prefix.comm.substr(0, 14));
      *at++ = '/';
    }
    const fmt::format_int tid(prefix.tid);
    put({tid.data(), tid.size()});
    *at++ = ' ';
  }
  out.append(text, at);
}

// perf pads the call to its 70-column argument alignment, with at least one space, then "= ".
void append_return_padding(std::string& out, size_t call_length) {
  constexpr std::string_view kPadding =
      "                                                                      = ";  // 70 spaces
  out += kPadding.substr(call_length < 70 ? call_length : 69);
}

// "name(arg: value, ...)"; returns what fcntl's cmd chose for the return value.
ReturnFormat append_call(std::string& out, const SyscallCall& call, const SyscallLineFormat& format,
                         pid_t pid, const SyscallContext& context) {
  out += call.syscall;
  out += '(';
  const ReturnFormat return_format = append_arguments(out, call, format, pid, context);
  out += ')';
  return return_format;
}

}  // namespace

SyscallLineFormat::SyscallLineFormat(std::string_view syscall, std::span<const SyscallArgField> fields)
    : arguments_(static_cast<uint8_t>(std::min<size_t>(fields.size(), 6))), no_return_(is_exit(syscall)) {
  const SyscallFormat* format = find_format(syscall);
  const uint8_t flags = format != nullptr ? format->flags : 0;
  returns_pid_ = (flags & kErrpid) != 0;
  returns_timeout_ = (flags & kTimeout) != 0;
  returns_hex_ = (flags & kHexret) != 0;
  for (size_t index = 0; index < arguments_; ++index) {
    formats_[index] = argument_format(format, index, fields[index]);
    if (output::prints_zero(formats_[index])) zero_mask_ |= static_cast<uint8_t>(1u << index);
    if (is_argv(fields[index])) list_mask_ |= static_cast<uint8_t>(1u << index);
  }
}

uint32_t string_argument_mask(std::string_view syscall, std::span<const SyscallArgField> fields) {
  const SyscallLineFormat format(syscall, fields);
  uint32_t mask = 0;
  for (size_t index = 0; index < format.arguments(); ++index) {
    if (format.argument(index) == F::Filename || format.string_list(index)) mask |= 1u << index;
  }
  return mask;
}

void append_syscall_call(std::string& out, const SyscallCall& call, pid_t pid,
                         const SyscallContext& context) {
  append_call(out, call, SyscallLineFormat(call.syscall, call.fields), pid, context);
}

void append_syscall_return(std::string& out, const SyscallCall& call, const SyscallContext& context) {
  append_syscall_return(out, call, 0, context);
}

void append_syscall_return(std::string& out, const SyscallCall& call, pid_t pid,
                           const SyscallContext& context) {
  // Only fcntl's cmd changes how a return prints; its other arguments need not be printed here.
  uint32_t skipped = 0;
  ReturnFormat return_format = ReturnFormat::Plain;
  if (call.syscall == "fcntl" && call.fields.size() > 1) fcntl_effect(call.args[1], skipped, return_format);
  append_return_value(out, call, SyscallLineFormat(call.syscall, {}), pid, context, return_format);
}

void append_syscall_line(std::string& out, const SyscallLinePrefix& prefix, const SyscallCall& call,
                         pid_t pid, const SyscallContext& context) {
  append_syscall_line(out, prefix, call, SyscallLineFormat(call.syscall, call.fields), pid, context);
}

void append_syscall_line(std::string& out, const SyscallLinePrefix& prefix, const SyscallCall& call,
                         const SyscallLineFormat& format, pid_t pid, const SyscallContext& context) {
  append_prefix(out, prefix, format.no_return());
  const size_t call_start = out.size();
  const ReturnFormat return_format = append_call(out, call, format, pid, context);
  append_return_padding(out, out.size() - call_start);
  append_return_value(out, call, format, pid, context, return_format);
  out += '\n';
}

void append_syscall_continued_line(std::string& out, const SyscallLinePrefix& prefix, const SyscallCall& call,
                                   pid_t pid, const SyscallContext& context) {
  append_syscall_continued_line(out, prefix, call, SyscallLineFormat(call.syscall, {}), pid, context);
}

void append_syscall_continued_line(std::string& out, const SyscallLinePrefix& prefix, const SyscallCall& call,
                                   const SyscallLineFormat& format, pid_t pid,
                                   const SyscallContext& context) {
  append_prefix(out, prefix);
  const size_t call_start = out.size();
  out += " ... [continued]: "sv;
  out += call.syscall;
  out += "())"sv;
  append_return_padding(out, out.size() - call_start);
  append_return_value(out, call, format, pid, context, ReturnFormat::Plain);
  out += '\n';
}

void append_syscall_interrupted_line(std::string& out, const SyscallLinePrefix& prefix,
                                     const SyscallCall& call, pid_t pid, const SyscallContext& context) {
  append_syscall_interrupted_line(out, prefix, call, SyscallLineFormat(call.syscall, call.fields), pid,
                                  context);
}

void append_syscall_interrupted_line(std::string& out, const SyscallLinePrefix& prefix,
                                     const SyscallCall& call, const SyscallLineFormat& format, pid_t pid,
                                     const SyscallContext& context) {
  append_prefix(out, prefix, true);
  const size_t call_start = out.size();
  append_call(out, call, format, pid, context);
  const size_t call_length = out.size() - call_start;
  if (call_length < 66) out.append(66 - call_length, ' ');
  out += " ...\n"sv;
}

}  // namespace sonde::output
