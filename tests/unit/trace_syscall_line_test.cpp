// Syscall lines against perf trace 6.1 on the build machine: each expected string is the line
// perf printed for the same arguments, padding included; the comment above it quotes that line
// (long comments are rewrapped, their runs of spaces squeezed). Tests of sonde's own rule say so:
// strings read by the tracer print where perf 6.1 prints the pointer.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "output/trace/syscall_line.hpp"

using namespace sonde::output;

namespace {

// Argument fields as /sys/kernel/tracing/events/syscalls/sys_enter_*/format gives them.
const std::vector<SyscallArgField> kOpenat = {
    {"dfd", "int"}, {"filename", "const char *"}, {"flags", "int"}, {"mode", "umode_t"}};
const std::vector<SyscallArgField> kRead = {{"fd", "unsigned int"}, {"buf", "char *"}, {"count", "size_t"}};
const std::vector<SyscallArgField> kWrite = {
    {"fd", "unsigned int"}, {"buf", "const char *"}, {"count", "size_t"}};
const std::vector<SyscallArgField> kClose = {{"fd", "unsigned int"}};
const std::vector<SyscallArgField> kMmap = {{"addr", "unsigned long"}, {"len", "unsigned long"},
                                            {"prot", "unsigned long"}, {"flags", "unsigned long"},
                                            {"fd", "unsigned long"},   {"off", "unsigned long"}};
const std::vector<SyscallArgField> kMprotect = {
    {"start", "unsigned long"}, {"len", "size_t"}, {"prot", "unsigned long"}};
const std::vector<SyscallArgField> kBrk = {{"brk", "unsigned long"}};
const std::vector<SyscallArgField> kClone = {{"clone_flags", "unsigned long"},
                                             {"newsp", "unsigned long"},
                                             {"parent_tidptr", "int *"},
                                             {"child_tidptr", "int *"},
                                             {"tls", "unsigned long"}};
const std::vector<SyscallArgField> kExecve = {
    {"filename", "const char *"}, {"argv", "const char *const *"}, {"envp", "const char *const *"}};
const std::vector<SyscallArgField> kKill = {{"pid", "pid_t"}, {"sig", "int"}};
const std::vector<SyscallArgField> kAccess = {{"filename", "const char *"}, {"mode", "int"}};
const std::vector<SyscallArgField> kWait4 = {
    {"upid", "pid_t"}, {"stat_addr", "int *"}, {"options", "int"}, {"ru", "struct rusage *"}};
const std::vector<SyscallArgField> kSetTidAddress = {{"tidptr", "int *"}};
const std::vector<SyscallArgField> kExitGroup = {{"error_code", "int"}};
const std::vector<SyscallArgField> kFcntl = {
    {"fd", "unsigned int"}, {"cmd", "unsigned int"}, {"arg", "unsigned long"}};
const std::vector<SyscallArgField> kFutex = {
    {"uaddr", "u32 *"},  {"op", "int"},  {"val", "u32"}, {"utime", "const struct __kernel_timespec *"},
    {"uaddr2", "u32 *"}, {"val3", "u32"}};
const std::vector<SyscallArgField> kIoctl = {
    {"fd", "unsigned int"}, {"cmd", "unsigned int"}, {"arg", "unsigned long"}};
const std::vector<SyscallArgField> kSocket = {{"family", "int"}, {"type", "int"}, {"protocol", "int"}};
const std::vector<SyscallArgField> kPrlimit64 = {{"pid", "pid_t"},
                                                 {"resource", "unsigned int"},
                                                 {"new_rlim", "const struct rlimit64 *"},
                                                 {"old_rlim", "struct rlimit64 *"}};
const std::vector<SyscallArgField> kNewfstatat = {
    {"dfd", "int"}, {"filename", "const char *"}, {"statbuf", "struct stat *"}, {"flag", "int"}};
const std::vector<SyscallArgField> kMadvise = {
    {"start", "unsigned long"}, {"len_in", "size_t"}, {"behavior", "int"}};
const std::vector<SyscallArgField> kPoll = {
    {"ufds", "struct pollfd *"}, {"nfds", "unsigned int"}, {"timeout_msecs", "int"}};
const std::vector<SyscallArgField> kLseek = {
    {"fd", "unsigned int"}, {"offset", "off_t"}, {"whence", "unsigned int"}};
const std::vector<SyscallArgField> kArchPrctl = {{"option", "int"}, {"arg2", "unsigned long"}};

// What perf would know about the traced machine: fd paths and thread comms.
struct Machine {
  std::map<int, std::string> paths;
  std::map<pid_t, std::string> comms;
  SyscallContext context() const {
    SyscallContext context;
    context.fd_path = [this](pid_t, int fd) {
      const auto found = paths.find(fd);
      return found == paths.end() ? std::string_view() : std::string_view(found->second);
    };
    context.comm_of = [this](pid_t tid) {
      const auto found = comms.find(tid);
      return found == comms.end() ? std::string_view() : std::string_view(found->second);
    };
    return context;
  }
};

SyscallCall make_call(std::string_view name, const std::vector<SyscallArgField>& fields,
                      std::array<uint64_t, 6> args, int64_t ret) {
  SyscallCall call;
  call.syscall = name;
  call.fields = fields;
  call.args = args;
  call.ret = ret;
  return call;
}

SyscallLinePrefix prefix(double time_ms, std::optional<double> duration_ms, std::string_view comm,
                         pid_t tid) {
  SyscallLinePrefix prefix;
  prefix.time_ms = time_ms;
  prefix.duration_ms = duration_ms;
  prefix.comm = comm;
  prefix.tid = tid;
  return prefix;
}

std::string line(const SyscallLinePrefix& line_prefix, const SyscallCall& call, const Machine& machine = {}) {
  std::string out;
  append_syscall_line(out, line_prefix, call, line_prefix.tid, machine.context());
  return out;
}

constexpr uint64_t kAtFdcwd = 0xffffff9c;  // -100 as glibc leaves it in the register

}  // namespace

TEST(SyscallLine, OpenatPrintsThePointerWherePerfHasNoString) {
  // perf: "     0.448 ( 0.019 ms): ls/2127 openat(dfd: CWD, filename: 0x781330b1, flags: RDONLY|CLOEXEC) = 3"
  const auto call = make_call("openat", kOpenat, {kAtFdcwd, 0x7f4a781330b1, 0x80000, 0}, 3);
  EXPECT_EQ(line(prefix(0.448, 0.019, "ls", 2127), call),
            "     0.448 ( 0.019 ms): ls/2127 openat(dfd: CWD, filename: 0x781330b1, flags: RDONLY|CLOEXEC)   "
            "      = 3\n");
}

TEST(SyscallLine, OpenatPrintsTheStringTheTracerRead) {
  // sonde's rule: perf 6.1's line above, with the string where perf printed the pointer.
  auto call = make_call("openat", kOpenat, {kAtFdcwd, 0x7f4a781330b1, 0x80000, 0}, 3);
  call.strings[1] = "/etc/ld.so.cache";
  EXPECT_EQ(line(prefix(0.448, 0.019, "ls", 2127), call),
            "     0.448 ( 0.019 ms): ls/2127 openat(dfd: CWD, filename: \"/etc/ld.so.cache\", flags: "
            "RDONLY|CLOEXEC) = 3\n");
  call.strings[1] = "a\"b\\c\n\x01";
  std::string out;
  append_syscall_call(out, call, 2127, {});
  EXPECT_EQ(out, "openat(dfd: CWD, filename: \"a\\\"b\\\\c\\n\\001\", flags: RDONLY|CLOEXEC)");
}

TEST(SyscallLine, OpenatModeOnlyWithCreat) {
  // perf: "     2.541 ( 0.015 ms): probe1/5110 openat(dfd: -1, filename: 0xe35e500d, flags:
  // CREAT|TRUNC|WRONLY, mode: IRUGO|IWUSR) = -1 EBADF (Bad file descriptor)"
  EXPECT_EQ(
      line(prefix(2.541, 0.015, "probe1", 5110),
           make_call("openat", kOpenat, {0xffffffff, 0x55e2e35e500d, 01101, 0644}, -9)),
      "     2.541 ( 0.015 ms): probe1/5110 openat(dfd: -1, filename: 0xe35e500d, flags: CREAT|TRUNC|WRONLY, "
      "mode: IRUGO|IWUSR) = -1 EBADF (Bad file descriptor)\n");
  // perf: "     2.682 ( 0.027 ms): probe1/5110 openat(dfd: -1, filename: 0xe35e500d, flags:
  // RDWR|DIRECTORY|TMPFILE)  = -1 EBADF (Bad file descriptor)"
  EXPECT_EQ(line(prefix(2.682, 0.027, "probe1", 5110),
                 make_call("openat", kOpenat, {0xffffffff, 0x55e2e35e500d, 020200002, 0600}, -9)),
            "     2.682 ( 0.027 ms): probe1/5110 openat(dfd: -1, filename: 0xe35e500d, flags: "
            "RDWR|DIRECTORY|TMPFILE)  = "
            "-1 EBADF (Bad file descriptor)\n");
  // perf 6.1 skips flags of 0, so nothing masks the mode:
  // "     2.504 ( 0.015 ms): probe1/5110 openat(dfd: -1, filename: 0xe35e500d, mode: IRUGO|IWUSR) = -1 EBADF
  // (Bad file descriptor)"
  EXPECT_EQ(line(prefix(2.504, 0.015, "probe1", 5110),
                 make_call("openat", kOpenat, {0xffffffff, 0x55e2e35e500d, 0, 0644}, -9)),
            "     2.504 ( 0.015 ms): probe1/5110 openat(dfd: -1, filename: 0xe35e500d, mode: IRUGO|IWUSR)    "
            "          = "
            "-1 EBADF (Bad file descriptor)\n");
  // perf: "     2.608 ( 0.023 ms): probe1/5110 openat(dfd: -1, filename: 0xe35e500d, flags:
  // RDONLY|SYNC|0x101000)    = -1 EBADF (Bad file descriptor)"
  EXPECT_EQ(line(prefix(2.608, 0.023, "probe1", 5110),
                 make_call("openat", kOpenat, {0xffffffff, 0x55e2e35e500d, 04010000, 0}, -9)),
            "     2.608 ( 0.023 ms): probe1/5110 openat(dfd: -1, filename: 0xe35e500d, flags: "
            "RDONLY|SYNC|0x101000)    = "
            "-1 EBADF (Bad file descriptor)\n");
}

TEST(SyscallLine, ReadAndWriteShowFdPaths) {
  Machine machine;
  machine.paths[3] = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  // perf: "     0.618 ( 0.015 ms): ls/2127 read(fd: 3</usr/lib/x86_64-linux-gnu/libc.so.6>, buf:
  // 0x7fff0f003198, count: 832) = 832"
  EXPECT_EQ(line(prefix(0.618, 0.015, "ls", 2127), make_call("read", kRead, {3, 0x7fff0f003198, 832}, 832),
                 machine),
            "     0.618 ( 0.015 ms): ls/2127 read(fd: 3</usr/lib/x86_64-linux-gnu/libc.so.6>, buf: "
            "0x7fff0f003198, count: "
            "832) = 832\n");
  // perf: "     2.670 ( 0.031 ms): ls/2127 read(fd: 3</proc/filesystems>, buf: 0x55f96b7d5500, count: 1024)
  // = 364"
  machine.paths[3] = "/proc/filesystems";
  EXPECT_EQ(line(prefix(2.670, 0.031, "ls", 2127), make_call("read", kRead, {3, 0x55f96b7d5500, 1024}, 364),
                 machine),
            "     2.670 ( 0.031 ms): ls/2127 read(fd: 3</proc/filesystems>, buf: 0x55f96b7d5500, count: "
            "1024)      = 364\n");
  // perf: "write(fd: 999, buf: 0x7ffcfd5dd4c4, count: 4)                         = -1 EBADF (Bad file
  // descriptor)"
  std::string out;
  append_syscall_call(out, make_call("write", kWrite, {999, 0x7ffcfd5dd4c4, 4}, -9), 5971, machine.context());
  EXPECT_EQ(out, "write(fd: 999, buf: 0x7ffcfd5dd4c4, count: 4)");
}

TEST(SyscallLine, CloseAndBrk) {
  Machine machine;
  machine.paths[3] = "/etc/locale.alias";
  // perf: "     3.063 ( 0.014 ms): ls/2127 close(fd: 3</etc/locale.alias>) = 0"
  EXPECT_EQ(line(prefix(3.063, 0.014, "ls", 2127), make_call("close", kClose, {3}, 0), machine),
            "     3.063 ( 0.014 ms): ls/2127 close(fd: 3</etc/locale.alias>)                                 "
            "      = 0\n");
  // perf: "     0.076 ( 0.016 ms): ls/2127 brk() = 0x55f96b7d5000"
  EXPECT_EQ(line(prefix(0.076, 0.016, "ls", 2127), make_call("brk", kBrk, {0}, 0x55f96b7d5000)),
            "     0.076 ( 0.016 ms): ls/2127 brk()                                                           "
            "      = "
            "0x55f96b7d5000\n");
  // perf: "     2.563 ( 0.017 ms): ls/2127 brk(brk: 0x55f96b7f6000) = 0x55f96b7f6000"
  EXPECT_EQ(line(prefix(2.563, 0.017, "ls", 2127), make_call("brk", kBrk, {0x55f96b7f6000}, 0x55f96b7f6000)),
            "     2.563 ( 0.017 ms): ls/2127 brk(brk: 0x55f96b7f6000)                                        "
            "      = "
            "0x55f96b7f6000\n");
}

TEST(SyscallLine, MmapAndMprotect) {
  // perf: "     0.370 ( 0.021 ms): ls/2127 mmap(len: 8192, prot: READ|WRITE, flags: PRIVATE|ANONYMOUS) =
  // 0x7f4a78100000"
  EXPECT_EQ(line(prefix(0.370, 0.021, "ls", 2127),
                 make_call("mmap", kMmap, {0, 8192, 3, 0x22, 0xffffffff, 0}, 0x7f4a78100000)),
            "     0.370 ( 0.021 ms): ls/2127 mmap(len: 8192, prot: READ|WRITE, flags: PRIVATE|ANONYMOUS)     "
            "      = "
            "0x7f4a78100000\n");
  // perf: "     0.712 ( 0.079 ms): ls/2127 mmap(addr: 0x7f4a780ce000, len: 110592, prot: READ|EXEC, flags:
  // PRIVATE|FIXED|DENYWRITE, fd: 3, off: 0x7000) = 0x7f4a780ce000"
  EXPECT_EQ(line(prefix(0.712, 0.079, "ls", 2127),
                 make_call("mmap", kMmap, {0x7f4a780ce000, 110592, 5, 0x812, 3, 0x7000}, 0x7f4a780ce000)),
            "     0.712 ( 0.079 ms): ls/2127 mmap(addr: 0x7f4a780ce000, len: 110592, prot: READ|EXEC, flags: "
            "PRIVATE|FIXED|DENYWRITE, fd: 3, off: 0x7000) = 0x7f4a780ce000\n");
  // perf: "     2.004 ( 0.034 ms): ls/2127 mprotect(start: 0x7f4a780b4000, len: 16384, prot: READ) = 0"
  EXPECT_EQ(
      line(prefix(2.004, 0.034, "ls", 2127), make_call("mprotect", kMprotect, {0x7f4a780b4000, 16384, 1}, 0)),
      "     2.004 ( 0.034 ms): ls/2127 mprotect(start: 0x7f4a780b4000, len: 16384, prot: READ)               "
      "= 0\n");
}

TEST(SyscallLine, UnnamedFlagBitsKeepPerfsFormatQuirk) {
  // perf 6.1 prints unnamed bits of its generated flag arrays with "0x%#", which glibc rejects:
  // "     1.544 ( 0.014 ms): probe1/5214 mmap(prot:, flags: PRIVATE, fd: 5, off: 0x1000) = -1 EBADF (Bad file
  // descriptor)"
  EXPECT_EQ(
      line(prefix(1.544, 0.014, "probe1", 5214), make_call("mmap", kMmap, {0, 0, 0x10, 2, 5, 0x1000}, -9)),
      "     1.544 ( 0.014 ms): probe1/5214 mmap(prot:, flags: PRIVATE, fd: 5, off: 0x1000)                   "
      "    = "
      "-1 EBADF (Bad file descriptor)\n");
  // and as the last argument: "mprotect(prot: 0x)                                                    = 0"
  std::string out;
  append_syscall_call(out, make_call("mprotect", kMprotect, {0, 0, 0x10}, 0), 5214, {});
  EXPECT_EQ(out, "mprotect(prot: 0x)");
  // an unknown madvise behaviour: "madvise(behavior: )                                                   = -1
  // EINVAL (Invalid argument)"
  out.clear();
  append_syscall_call(out, make_call("madvise", kMadvise, {0, 0, 5}, -22), 5214, {});
  EXPECT_EQ(out, "madvise(behavior: )");
  // perf: "     9.883 ( 0.029 ms): probe1/5214 madvise(start: 0x7f2b8fae8000, len_in: 4096, behavior:
  // MADV_DONTNEED) = 0"
  EXPECT_EQ(line(prefix(9.883, 0.029, "probe1", 5214),
                 make_call("madvise", kMadvise, {0x7f2b8fae8000, 4096, 4}, 0)),
            "     9.883 ( 0.029 ms): probe1/5214 madvise(start: 0x7f2b8fae8000, len_in: 4096, behavior: "
            "MADV_DONTNEED) = 0\n");
}

TEST(SyscallLine, CloneAndPidReturns) {
  Machine machine;
  machine.comms[5552] = "probe2";
  // perf: "     2.919 ( 0.237 ms): probe2/5551 clone(clone_flags: CHILD_CLEARTID|CHILD_SETTID|0x11,
  // child_tidptr: 0x7f5bf3ad8a10) = 5552 (probe2)"
  EXPECT_EQ(line(prefix(2.919, 0.237, "probe2", 5551),
                 make_call("clone", kClone, {0x1200011, 0, 0, 0x7f5bf3ad8a10, 0}, 5552), machine),
            "     2.919 ( 0.237 ms): probe2/5551 clone(clone_flags: CHILD_CLEARTID|CHILD_SETTID|0x11, "
            "child_tidptr: "
            "0x7f5bf3ad8a10) = 5552 (probe2)\n");
  // perf: "     2.066 ( 0.014 ms): probe2/5551 clone(clone_flags: THREAD|SETTLS, newsp: 0x1234, tls: 0xdef0)
  // = -1 EINVAL (Invalid argument)"
  EXPECT_EQ(line(prefix(2.066, 0.014, "probe2", 5551),
                 make_call("clone", kClone, {0x90000, 0x1234, 0x5678, 0x9abc, 0xdef0}, -22)),
            "     2.066 ( 0.014 ms): probe2/5551 clone(clone_flags: THREAD|SETTLS, newsp: 0x1234, tls: "
            "0xdef0)         = "
            "-1 EINVAL (Invalid argument)\n");
  // The child's 0 has no thread in perf: "         ? (         ): probe2/5552  ... [continued]: clone()) = "
  // (sonde keeps the number).
  SyscallLinePrefix child = prefix(0, std::nullopt, "probe2", 5552);
  child.time_known = false;
  std::string out;
  append_syscall_continued_line(out, child, make_call("clone", kClone, {}, 0), 5552, machine.context());
  EXPECT_EQ(out,
            "         ? (         ): probe2/5552  ... [continued]: clone())                                  "
            "          = 0\n");
  // perf: "     1.145 ( 0.015 ms): probe2/5551 set_tid_address(tidptr: 0x7f5bf3ad8a10) = 5551 (probe2)"
  machine.comms[5551] = "probe2";
  EXPECT_EQ(line(prefix(1.145, 0.015, "probe2", 5551),
                 make_call("set_tid_address", kSetTidAddress, {0x7f5bf3ad8a10}, 5551), machine),
            "     1.145 ( 0.015 ms): probe2/5551 set_tid_address(tidptr: 0x7f5bf3ad8a10)                     "
            "          = "
            "5551 (probe2)\n");
  // A pid argument with its comm; perf: "3.679 ( 0.027 ms): probe2/5551 wait4(upid: -1, stat_addr:
  // 0x7ffc91aac8cc, options: NOHANG)           = 5553 (probe2)"
  machine.comms[5553] = "probe2";
  EXPECT_EQ(line(prefix(3.679, 0.027, "probe2", 5551),
                 make_call("wait4", kWait4, {0xffffffffffffffff, 0x7ffc91aac8cc, 1, 0}, 5553), machine),
            "     3.679 ( 0.027 ms): probe2/5551 wait4(upid: -1, stat_addr: 0x7ffc91aac8cc, options: NOHANG) "
            "          = "
            "5553 (probe2)\n");
}

TEST(SyscallLine, ExecveArgvAndContinuedLine) {
  // perf: "         ? (         ): ls/2127  ... [continued]: execve()) = 0"
  SyscallLinePrefix first = prefix(0, std::nullopt, "ls", 2127);
  first.time_known = false;
  std::string out;
  append_syscall_continued_line(out, first, make_call("execve", kExecve, {}, 0), 2127, {});
  EXPECT_EQ(out,
            "         ? (         ): ls/2127  ... [continued]: execve())                                     "
            "      = 0\n");
  // perf: "probe5/8118 execve(filename: 0x91af4069, argv: 0x7ffd25bd7e30, envp: 0x7ffd25bd7e40) = 0"
  auto call = make_call("execve", kExecve, {0x55bd91af4069, 0x7ffd25bd7e30, 0x7ffd25bd7e40}, 0);
  out.clear();
  append_syscall_call(out, call, 8118, {});
  EXPECT_EQ(out, "execve(filename: 0x91af4069, argv: 0x7ffd25bd7e30, envp: 0x7ffd25bd7e40)");
  // sonde's rule: the strings read at entry.
  call.strings[0] = "/bin/ls";
  call.strings[1] = std::string_view("ls\0-l\0", 6);
  out.clear();
  append_syscall_call(out, call, 8118, {});
  EXPECT_EQ(out, "execve(filename: \"/bin/ls\", argv: [\"ls\", \"-l\"], envp: 0x7ffd25bd7e40)");
  call.strings[1] = std::string_view("true\0\0", 6);
  out.clear();
  append_syscall_call(out, call, 8118, {});
  EXPECT_EQ(out, "execve(filename: \"/bin/ls\", argv: [\"true\", \"\"], envp: 0x7ffd25bd7e40)");
}

TEST(SyscallLine, KillSignalsAndPids) {
  Machine machine;
  machine.comms[5665] = "probe2";
  // perf: "     1.934 ( 0.021 ms): probe2/5665 kill(pid: 999999, sig: TERM) = -1 ESRCH (No such process)"
  EXPECT_EQ(line(prefix(1.934, 0.021, "probe2", 5665), make_call("kill", kKill, {999999, 15}, -3), machine),
            "     1.934 ( 0.021 ms): probe2/5665 kill(pid: 999999, sig: TERM)                                "
            "          = "
            "-1 ESRCH (No such process)\n");
  // perf: "kill(pid: 5665 (probe2))                                              = 0", "kill(pid: 999999,
  // sig: 0x20)", "kill(pid: -1, sig: 0x80000001)"
  std::string out;
  append_syscall_call(out, make_call("kill", kKill, {5665, 0}, 0), 5665, machine.context());
  append_syscall_call(out, make_call("kill", kKill, {999999, 32}, 0), 5665, machine.context());
  append_syscall_call(out, make_call("kill", kKill, {0xffffffff, 0x80000001}, 0), 5665, machine.context());
  EXPECT_EQ(out, "kill(pid: 5665 (probe2))kill(pid: 999999, sig: 0x20)kill(pid: -1, sig: 0x80000001)");
}

TEST(SyscallLine, AccessModes) {
  // perf: "     1.643 ( 0.026 ms): probe1/5196 access(filename: 0xc5fc400f, mode: RW) = -1 ENOENT (No such
  // file or directory)"
  EXPECT_EQ(line(prefix(1.643, 0.026, "probe1", 5196), make_call("access", kAccess, {0x5613c5fc400f, 6}, -2)),
            "     1.643 ( 0.026 ms): probe1/5196 access(filename: 0xc5fc400f, mode: RW)                      "
            "          = "
            "-1 ENOENT (No such file or directory)\n");
  // perf: "     1.722 ( 0.024 ms): probe1/5196 access(filename: 0xc5fc400f, mode: |0x8) = -1 EINVAL (Invalid
  // argument)"
  EXPECT_EQ(
      line(prefix(1.722, 0.024, "probe1", 5196), make_call("access", kAccess, {0x5613c5fc400f, 8}, -22)),
      "     1.722 ( 0.024 ms): probe1/5196 access(filename: 0xc5fc400f, mode: |0x8)                          "
      "    = "
      "-1 EINVAL (Invalid argument)\n");
  // F_OK is zero, and perf skips it: "access(filename: 0x780e98cb)"
  std::string out;
  append_syscall_call(out, make_call("access", kAccess, {0x7f4a780e98cb, 0}, -2), 2127, {});
  EXPECT_EQ(out, "access(filename: 0x780e98cb)");
}

TEST(SyscallLine, ErrorReturns) {
  std::string out;
  append_syscall_return(out, make_call("openat", kOpenat, {}, -2), {});
  EXPECT_EQ(out, "-1 ENOENT (No such file or directory)");
  // A restarted read, as perf 6.1 prints the kernel's ERESTARTSYS:
  // "     2.001 (999.798 ms): probe7/11524  ... [continued]: read()) = -1 (unknown) (INTERNAL ERROR:
  // strerror_r(512, [buf], 128)=22)"
  out.clear();
  append_syscall_continued_line(out, prefix(2.001, 999.798, "probe7", 11524),
                                make_call("read", kRead, {}, -512), 11524, {});
  EXPECT_EQ(out,
            "     2.001 (999.798 ms): probe7/11524  ... [continued]: read())                                 "
            "            = -1 "
            "(unknown) (INTERNAL ERROR: strerror_r(512, [buf], 128)=22)\n");
}

TEST(SyscallLine, NoDurationLines) {
  // perf: "     3.310 (         ): probe2/5552 exit_group(error_code: 3) = ?"
  EXPECT_EQ(line(prefix(3.310, std::nullopt, "probe2", 5552), make_call("exit_group", kExitGroup, {3}, 0)),
            "     3.310 (         ): probe2/5552 exit_group(error_code: 3)                                   "
            "          = ?\n");
  // perf: "     3.218 (         ): probe2/5551 wait4(upid: 5552 (probe2), stat_addr: 0x7ffc91aac8cc) ..."
  Machine machine;
  machine.comms[5552] = "probe2";
  std::string out;
  append_syscall_interrupted_line(out, prefix(3.218, std::nullopt, "probe2", 5551),
                                  make_call("wait4", kWait4, {5552, 0x7ffc91aac8cc, 0, 0}, 0), 5551,
                                  machine.context());
  EXPECT_EQ(out,
            "     3.218 (         ): probe2/5551 wait4(upid: 5552 (probe2), stat_addr: 0x7ffc91aac8cc)       "
            "       ...\n");
}

TEST(SyscallLine, PrefixVariants) {
  const auto call = make_call("close", kClose, {3}, 0);
  // perf trace --no-comm: "     0.000 ( 0.037 ms): 15685 close(fd: 3) = 0"
  SyscallLinePrefix no_comm = prefix(0, 0.037, "cat", 15685);
  no_comm.show_comm = false;
  EXPECT_EQ(line(no_comm, call),
            "     0.000 ( 0.037 ms): 15685 close(fd: 3)                                                      "
            "    = 0\n");
  // one thread (perf trace -p PID --no-inherit): no comm, no tid; comms are cut to 14 characters.
  SyscallLinePrefix one_thread = prefix(1.5, 1.25, "cat", 15685);
  one_thread.show_tid = false;
  EXPECT_EQ(
      line(one_thread, call),
      "     1.500 ( 1.250 ms): close(fd: 3)                                                          = 0\n");
  EXPECT_EQ(line(prefix(1.5, 1.25, "a-very-long-comm-name", 7), call),
            "     1.500 ( 1.250 ms): a-very-long-co/7 close(fd: 3)                                           "
            "               = 0\n");
}

TEST(SyscallLine, FcntlReturnsFollowTheCommand) {
  Machine machine;
  machine.paths[4] = "/etc/passwd";
  machine.paths[11] = "/etc/passwd";
  machine.paths[10] = "/dev/null";
  // perf: "fcntl(fd: 4</etc/passwd>, cmd: GETFL)                                 = RDONLY|LARGEFILE"
  //       "fcntl(fd: 4</etc/passwd>, cmd: GETFD)                                 = CLOEXEC"   (ret 0:
  //       perf 6.1's test is backwards) "fcntl(fd: 4</etc/passwd>, cmd: DUPFD, arg: 10</dev/null>) =
  //       11</etc/passwd>" "fcntl(fd: 999, cmd: SETLEASE, arg: 801)                               = -1 EBADF
  //       (Bad file descriptor)"
  const auto text = [&](std::array<uint64_t, 6> args, int64_t ret) {
    std::string out;
    const auto call = make_call("fcntl", kFcntl, args, ret);
    append_syscall_call(out, call, 5971, machine.context());
    out += " = ";
    append_syscall_return(out, call, 5971, machine.context());
    return out;
  };
  EXPECT_EQ(text({4, 3, 0}, 0x8000), "fcntl(fd: 4</etc/passwd>, cmd: GETFL) = RDONLY|LARGEFILE");
  EXPECT_EQ(text({4, 1, 0}, 0), "fcntl(fd: 4</etc/passwd>, cmd: GETFD) = CLOEXEC");
  EXPECT_EQ(text({4, 0, 10}, 11),
            "fcntl(fd: 4</etc/passwd>, cmd: DUPFD, arg: 10</dev/null>) = 11</etc/passwd>");
  EXPECT_EQ(text({999, 1024, 0x801}, -9),
            "fcntl(fd: 999, cmd: SETLEASE, arg: 801) = -1 EBADF (Bad file descriptor)");
}

TEST(SyscallLine, FutexIoctlSocketPrlimit) {
  Machine machine;
  machine.comms[6929] = "probe4";
  machine.paths[4] = "/etc/passwd";
  const auto call_text = [&](std::string_view name, const std::vector<SyscallArgField>& fields,
                             std::array<uint64_t, 6> args) {
    std::string out;
    append_syscall_call(out, make_call(name, fields, args, 0), 6929, machine.context());
    return out;
  };
  // perf: "futex(uaddr: 0x7ffd8ce76abc, op: CMP_REQUEUE|PRIVATE_FLAG, val: 5, uaddr2: 0x7ffd8ce76abc, val3:
  // 0x7d)"  (val3 7: perf 6.1 prints "%#xd")
  EXPECT_EQ(call_text("futex", kFutex, {0x7ffd8ce76abc, 0x84, 5, 0x7ffd8ce76aa0, 0x7ffd8ce76abc, 7}),
            "futex(uaddr: 0x7ffd8ce76abc, op: CMP_REQUEUE|PRIVATE_FLAG, val: 5, uaddr2: 0x7ffd8ce76abc, "
            "val3: 0x7d)");
  // perf: "futex(uaddr: 0x7ffd8ce76abc, op: WAIT_BITSET|CLOCK_REALTIME, val: 5, utime: 0x7ffd8ce76aa0, val3:
  // MATCH_ANY)"
  EXPECT_EQ(call_text("futex", kFutex, {0x7ffd8ce76abc, 0x109, 5, 0x7ffd8ce76aa0, 0, 0xffffffff}),
            "futex(uaddr: 0x7ffd8ce76abc, op: WAIT_BITSET|CLOCK_REALTIME, val: 5, utime: 0x7ffd8ce76aa0, "
            "val3: MATCH_ANY)");
  // perf: "ioctl(fd: 999, cmd: TCGETS, arg: 0x1234)", "ioctl(fd: 999, cmd: KVM_CREATE_VM)", "ioctl(fd: 999,
  // cmd: (READ, 0x50, 0xf, 0x4))", "ioctl(fd: 999, cmd: (0x54, 0x26, 0x1))"
  EXPECT_EQ(call_text("ioctl", kIoctl, {999, 0x5401, 0x1234}), "ioctl(fd: 999, cmd: TCGETS, arg: 0x1234)");
  EXPECT_EQ(call_text("ioctl", kIoctl, {999, 0xae01, 0}), "ioctl(fd: 999, cmd: KVM_CREATE_VM)");
  EXPECT_EQ(call_text("ioctl", kIoctl, {999, 0x8004500f, 0}), "ioctl(fd: 999, cmd: (READ, 0x50, 0xf, 0x4))");
  EXPECT_EQ(call_text("ioctl", kIoctl, {999, 0x40045426, 0}), "ioctl(fd: 999, cmd: (0x54, 0x26, 0x1))");
  // perf: "socket(family: INET, type: DGRAM|CLOEXEC|NONBLOCK|0x100)", "socket(family: INET, type: RAW,
  // protocol: ICMP)", "socket(family: LOCAL, type: STREAM, protocol: 6)"
  EXPECT_EQ(call_text("socket", kSocket, {2, 0x80902}),
            "socket(family: INET, type: DGRAM|CLOEXEC|NONBLOCK|0x100)");
  EXPECT_EQ(call_text("socket", kSocket, {2, 3, 1}), "socket(family: INET, type: RAW, protocol: ICMP)");
  EXPECT_EQ(call_text("socket", kSocket, {1, 1, 6}), "socket(family: LOCAL, type: STREAM, protocol: 6)");
  // perf: "prlimit64(resource: CPU, old_rlim: 0x7ffd5c060c30)" (a zero string-table value still prints)
  EXPECT_EQ(call_text("prlimit64", kPrlimit64, {0, 0, 0, 0x7ffd5c060c30}),
            "prlimit64(resource: CPU, old_rlim: 0x7ffd5c060c30)");
  // perf: "prlimit64(pid: 6929 (probe4), resource: NOFILE, new_rlim: 0x7ffd5c060c30)"
  EXPECT_EQ(call_text("prlimit64", kPrlimit64, {6929, 7, 0x7ffd5c060c30, 0}),
            "prlimit64(pid: 6929 (probe4), resource: NOFILE, new_rlim: 0x7ffd5c060c30)");
  // perf: "lseek(fd: 4</etc/passwd>, whence: SET)", "arch_prctl(option: SET_FS, arg2: 0x7f4a77e48800)",
  // "arch_prctl(option: 0x1005, arg2: 0x7ffd5c060c30)"
  EXPECT_EQ(call_text("lseek", kLseek, {4, 0, 0}), "lseek(fd: 4</etc/passwd>, whence: SET)");
  EXPECT_EQ(call_text("arch_prctl", kArchPrctl, {0x1002, 0x7f4a77e48800}),
            "arch_prctl(option: SET_FS, arg2: 0x7f4a77e48800)");
  EXPECT_EQ(call_text("arch_prctl", kArchPrctl, {0x1005, 0x7ffd5c060c30}),
            "arch_prctl(option: 0x1005, arg2: 0x7ffd5c060c30)");
}

TEST(SyscallLine, NewfstatatFlagIsANumberAndPollTimesOut) {
  // perf: "     1.780 ( 0.021 ms): probe5/7981 newfstatat(dfd: CWD, filename: 0x1db1800a, statbuf:
  // 0x7ffcfdf7b4c0, flag: 4096) = -1 ENOENT (No such file or directory)"
  EXPECT_EQ(line(prefix(1.780, 0.021, "probe5", 7981),
                 make_call("newfstatat", kNewfstatat, {kAtFdcwd, 0x55ef1db1800a, 0x7ffcfdf7b4c0, 4096}, -2)),
            "     1.780 ( 0.021 ms): probe5/7981 newfstatat(dfd: CWD, filename: 0x1db1800a, statbuf: "
            "0x7ffcfdf7b4c0, "
            "flag: 4096) = -1 ENOENT (No such file or directory)\n");
  // perf: "poll(ufds: 0x7ffcfdf7b4b8)                                            = 0 (Timeout)"
  std::string out;
  append_syscall_return(out, make_call("poll", kPoll, {0x7ffcfdf7b4b8, 0, 0}, 0), {});
  EXPECT_EQ(out, "0 (Timeout)");
}

TEST(SyscallLine, StringArgumentMaskNamesPathsAndArgv) {
  EXPECT_EQ(string_argument_mask("openat", kOpenat), 0b10u);
  EXPECT_EQ(string_argument_mask("execve", kExecve), 0b11u);
  EXPECT_EQ(string_argument_mask("access", kAccess), 0b1u);
  EXPECT_EQ(string_argument_mask("newfstatat", kNewfstatat), 0b10u);
  EXPECT_EQ(string_argument_mask("write", kWrite), 0u);  // a buffer, not a path
  EXPECT_EQ(string_argument_mask("read", kRead), 0u);
  const std::vector<SyscallArgField> rename = {{"oldname", "const char *"}, {"newname", "const char *"}};
  EXPECT_EQ(string_argument_mask("rename", rename), 0b11u);
  // mount's dev_name is a char * that perf's table names a file name; umount's name too.
  const std::vector<SyscallArgField> mount = {{"dev_name", "char *"},
                                              {"dir_name", "char *"},
                                              {"type", "char *"},
                                              {"flags", "unsigned long"},
                                              {"data", "void *"}};
  EXPECT_EQ(string_argument_mask("mount", mount), 0b1u);
  // perf 6.1 prints symlinkat's target as a dfd, not as a path.
  const std::vector<SyscallArgField> symlinkat = {
      {"oldname", "const char *"}, {"newdfd", "int"}, {"newname", "const char *"}};
  EXPECT_EQ(string_argument_mask("symlinkat", symlinkat), 0b100u);
}

TEST(SyscallLine, TimesRoundAsPrintfDoes) {
  // printf's "%10.3f" and "%6.3f": the double's exact value rounded to the nearest thousandth,
  // exact halves to even; negative values keep their sign down to -0.000; wide values widen.
  const auto call = make_call("close", kClose, {3}, 0);
  const auto times = [&](double time_ms, double duration_ms) {
    SyscallLinePrefix times_only = prefix(time_ms, duration_ms, "", 0);
    times_only.show_tid = false;
    const std::string text = line(times_only, call);
    return text.substr(0, text.find(": close("));
  };
  EXPECT_EQ(times(0.0625, 0.1875), "     0.062 ( 0.188 ms)");  // halves
  EXPECT_EQ(times(2.0625, -0.0625), "     2.062 (-0.062 ms)");
  EXPECT_EQ(times(0.0005, 0.0015), "     0.001 ( 0.002 ms)");  // just above a half
  EXPECT_EQ(times(1.0005, 2.5e-7), "     1.000 ( 0.000 ms)");  // just below
  EXPECT_EQ(times(-0.0004, -0.0), "    -0.000 (-0.000 ms)");
  EXPECT_EQ(times(-12.3456, 1e-320), "   -12.346 ( 0.000 ms)");
  EXPECT_EQ(times(4503599627370.4965, 999.9995), "4503599627370.496 (1000.000 ms)");
  EXPECT_EQ(times(123456789.0005, 62.5), "123456789.000 (62.500 ms)");
  EXPECT_EQ(times(1e20, 1e17), "100000000000000000000.000 (100000000000000000.000 ms)");
  // From the tracer's nanoseconds, as trace_event_text makes them.
  EXPECT_EQ(times(static_cast<double>(1234567891) / 1e6, static_cast<double>(62500) / 1e6),
            "  1234.568 ( 0.062 ms)");
}

TEST(SyscallLine, FormatWorkedOutOnceGivesTheSameLines) {
  Machine machine;
  machine.paths[3] = "/etc/passwd";
  machine.paths[10] = "/dev/null";
  machine.comms[5552] = "probe2";
  auto openat = make_call("openat", kOpenat, {kAtFdcwd, 0x7f4a781330b1, 0x80000, 0}, 3);
  openat.strings[1] = "/etc/ld.so.cache";
  auto execve = make_call("execve", kExecve, {0x55bd91af4069, 0x7ffd25bd7e30, 0x7ffd25bd7e40}, 0);
  execve.strings[0] = "/bin/ls";
  execve.strings[1] = std::string_view("ls\0-l\0", 6);
  const std::vector<SyscallCall> calls = {
      openat,
      execve,
      make_call("read", kRead, {3, 0x5568ced684a0, 4096}, 4096),
      make_call("mmap", kMmap, {0, 8192, 3, 0x22, 0xffffffff, 0}, 0x7f16a6749000),
      make_call("fcntl", kFcntl, {3, 0, 10}, 11),
      make_call("fcntl", kFcntl, {3, 3, 0}, 0x8000),
      make_call("clone", kClone, {0x1200011, 0, 0, 0x7f5bf3ad8a10, 0}, 5552),
      make_call("madvise", kMadvise, {0x7f0000000000, 4096, 0x55}, -22),
      make_call("exit_group", kExitGroup, {3}, 0),
      make_call("poll", kPoll, {0x7ffcfdf7b4b8, 1, 0}, 0),
      make_call("syscall_451", {}, {1, 2, 3}, 0),
  };
  const SyscallContext context = machine.context();
  for (const SyscallCall& call : calls) {
    const SyscallLineFormat format(call.syscall, call.fields);
    const SyscallLinePrefix line_prefix = prefix(1.5, 0.25, "probe2", 5551);
    std::string plain = "earlier text\n", prepared = plain;
    append_syscall_line(plain, line_prefix, call, 5551, context);
    append_syscall_line(prepared, line_prefix, call, format, 5551, context);
    EXPECT_EQ(prepared, plain);
    append_syscall_continued_line(plain, line_prefix, call, 5551, context);
    append_syscall_continued_line(prepared, line_prefix, call, format, 5551, context);
    EXPECT_EQ(prepared, plain);
    append_syscall_interrupted_line(plain, line_prefix, call, 5551, context);
    append_syscall_interrupted_line(prepared, line_prefix, call, format, 5551, context);
    EXPECT_EQ(prepared, plain);
  }
  const SyscallLineFormat format("openat", kOpenat);
  EXPECT_EQ(format.arguments(), 4u);
  EXPECT_EQ(format.argument(0), ArgFormat::FdAt);
  EXPECT_EQ(format.argument(1), ArgFormat::Filename);
  EXPECT_EQ(format.argument(3), ArgFormat::Mode);
  EXPECT_FALSE(format.prints_zero(0));
  EXPECT_TRUE(SyscallLineFormat("fcntl", kFcntl).prints_zero(1));
  EXPECT_TRUE(SyscallLineFormat("execve", kExecve).string_list(1));
  EXPECT_TRUE(SyscallLineFormat("exit_group", kExitGroup).no_return());
  EXPECT_TRUE(SyscallLineFormat("clone", kClone).returns_pid());
  EXPECT_TRUE(SyscallLineFormat("mmap", kMmap).returns_hex());
  EXPECT_TRUE(SyscallLineFormat("poll", kPoll).returns_timeout());
}
