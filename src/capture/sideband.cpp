#include "capture/sideband.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstring>
#include <optional>

#include "base/strings.hpp"
#include "format/synthesize.hpp"

namespace sonde::capture {

namespace {

using perfdata::SyntheticId;

// perf's HOST_KERNEL_ID: the pid of kernel and module maps.
constexpr uint32_t kKernelPid = UINT32_MAX;
// PF_KTHREAD in the flags field of /proc/PID/stat: a kernel thread has no maps to read.
constexpr unsigned long kPfKthread = 0x00200000;

// Reads a whole procfs file into `out`, reusing its capacity. procfs files have no size, and
// one large read returns as much as seq_file can give, so a maps file takes one or two reads.
bool read_proc_file(const std::string& path, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out.resize(std::max(out.capacity(), size_t{16384}));
  size_t filled = 0;
  while (true) {
    if (filled == out.size()) out.resize(out.size() * 2);
    ssize_t n = ::read(fd, out.data() + filled, out.size() - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      out.resize(filled);
      return n == 0;
    }
    filled += static_cast<size_t>(n);
  }
}

struct TaskStat {
  std::string comm;
  pid_t ppid = 0;
  bool kernel_thread = false;
};

// "/proc/PID/task/TID/stat": "tid (comm) state ppid pgrp session tty tpgid flags ...". The comm
// can hold spaces and parentheses, so the fields start after the last ')'. One read gives the
// name (raw, as the kernel's own COMM records carry it), the parent and the kernel-thread flag.
std::optional<TaskStat> read_task_stat(const std::string& path, std::string& buffer) {
  if (!read_proc_file(path, buffer)) return std::nullopt;
  size_t open = buffer.find('('), close = buffer.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  TaskStat stat;
  stat.comm = buffer.substr(open + 1, close - open - 1);
  auto fields = split(trim(std::string_view(buffer).substr(close + 1)), ' ');
  if (fields.size() < 7) return std::nullopt;
  stat.ppid = static_cast<pid_t>(parse_uint(fields[1], 10).value_or(0));
  stat.kernel_thread = (parse_uint(fields[6], 10).value_or(0) & kPfKthread) != 0;
  return stat;
}

// The thread group of `tid` from /proc/TID/status (any tid resolves under /proc, listed or not).
std::optional<pid_t> read_tgid(const std::string& proc, pid_t tid, std::string& buffer) {
  if (!read_proc_file(fmt::format("{}/{}/status", proc, tid), buffer)) return std::nullopt;
  size_t at = buffer.find("\nTgid:");
  if (at == std::string::npos) return std::nullopt;
  size_t end = buffer.find('\n', at + 1);
  auto tgid = parse_uint(trim(std::string_view(buffer).substr(at + 6, end - at - 6)), 10);
  if (!tgid) return std::nullopt;
  return static_cast<pid_t>(*tgid);
}

// The numeric entries of a /proc directory, sorted.
std::vector<pid_t> numeric_entries(const std::string& dir) {
  std::vector<pid_t> ids;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return ids;
  while (dirent* entry = ::readdir(d)) {
    if (auto id = parse_uint(entry->d_name, 10); id && *id > 0 && *id <= INT_MAX)
      ids.push_back(static_cast<pid_t>(*id));
  }
  ::closedir(d);
  std::sort(ids.begin(), ids.end());
  return ids;
}

// The task's COMM and, when the attr asks for namespaces (record --namespaces), its NAMESPACES
// read from /proc/PID/ns as perf synthesizes them.
Result<void> emit_comm(const perf_event_attr& attr, pid_t tgid, pid_t tid, const std::string& comm,
                       const RecordSink& sink, const std::string& proc) {
  if (auto sent = sink(perfdata::make_comm(attr, static_cast<uint32_t>(tgid), static_cast<uint32_t>(tid),
                                           comm, false, {}));
      !sent)
    return sent;
  if (!attr.namespaces) return {};
  std::vector<std::pair<uint64_t, uint64_t>> links;
  for (const char* name : {"net", "uts", "ipc", "pid", "user", "mnt", "cgroup"}) {
    struct stat st {};
    if (::stat(fmt::format("{}/{}/ns/{}", proc, tgid, name).c_str(), &st) == 0)
      links.emplace_back(static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino));
    else
      links.emplace_back(0, 0);
  }
  return sink(
      perfdata::make_namespaces(attr, static_cast<uint32_t>(tgid), static_cast<uint32_t>(tid), links, {}));
}

// What perf_event__synthesize_mmap_events writes for one maps line, or nothing.
std::optional<std::string> mmap2_record(const perf_event_attr& attr, pid_t pid, const ProcMap& map,
                                        bool data_mmaps) {
  if (map.perms.size() < 4) return std::nullopt;
  uint16_t misc = PERF_RECORD_MISC_USER;
  if (map.perms[2] != 'x') {
    if (!data_mmaps || map.perms[0] != 'r') return std::nullopt;
    misc |= PERF_RECORD_MISC_MMAP_DATA;
  }
  perfdata::SyntheticMmap2 m;
  m.pid = m.tid = static_cast<uint32_t>(pid);
  m.addr = map.start;
  m.len = map.end - map.start;
  m.pgoff = map.pgoff;
  m.maj = map.maj;
  m.min = map.min;
  m.ino = map.ino;
  m.prot = (map.perms[0] == 'r' ? PROT_READ : 0) | (map.perms[1] == 'w' ? PROT_WRITE : 0) |
           (map.perms[2] == 'x' ? PROT_EXEC : 0);
  m.flags = map.perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
  m.filename = map.name.empty() ? std::string_view("//anon") : map.name;
  m.misc = misc;
  return perfdata::make_mmap2(attr, m, {});
}

Result<void> emit_mmaps(const perf_event_attr& attr, pid_t pid, const SidebandOptions& options,
                        const RecordSink& sink, std::string& buffer) {
  // Unreadable maps (a vanished task, or one ptrace rules hide) are skipped, as perf skips them.
  if (!read_proc_file(fmt::format("{}/{}/maps", options.proc, pid), buffer)) return {};
  for (const auto& map : parse_proc_maps(buffer)) {
    if (auto record = mmap2_record(attr, pid, map, options.data_mmaps)) {
      if (auto sent = sink(*record); !sent) return sent;
    }
  }
  return {};
}

}  // namespace

RecordSink append_to(std::string& buffer) {
  return [&buffer](std::string_view record) -> Result<void> {
    buffer.append(record);
    return {};
  };
}

std::vector<ProcMap> parse_proc_maps(std::string_view text) {
  std::vector<ProcMap> maps;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    // "start-end perms offset maj:min inode   name": five fields, then the name after spaces.
    std::string_view fields[5];
    size_t at = 0;
    bool ok = true;
    for (auto& field : fields) {
      size_t stop = line.find(' ', at);
      if (stop == std::string_view::npos) stop = line.size();
      field = line.substr(at, stop - at);
      ok = ok && !field.empty();
      at = std::min(stop + 1, line.size());
    }
    if (!ok) continue;
    size_t dash = fields[0].find('-'), colon = fields[3].find(':');
    if (dash == std::string_view::npos || colon == std::string_view::npos) continue;
    auto start = parse_uint(fields[0].substr(0, dash), 16), stop = parse_uint(fields[0].substr(dash + 1), 16);
    auto pgoff = parse_uint(fields[2], 16), ino = parse_uint(fields[4], 10);
    auto maj = parse_uint(fields[3].substr(0, colon), 16), min = parse_uint(fields[3].substr(colon + 1), 16);
    if (!start || !stop || !pgoff || !ino || !maj || !min || *stop < *start) continue;
    std::string_view name = line.substr(at);
    name.remove_prefix(std::min(name.find_first_not_of(' '), name.size()));
    maps.push_back({*start, *stop, *pgoff, static_cast<uint32_t>(*maj), static_cast<uint32_t>(*min), *ino,
                    fields[1], name});
  }
  return maps;
}

Result<void> synthesize_kernel_maps(const perf_event_attr& attr, const kernel::KernelText& text,
                                    std::span<const kernel::KernelModule> modules, const RecordSink& sink) {
  std::vector<kernel::KernelModule> by_address(modules.begin(), modules.end());
  std::sort(by_address.begin(), by_address.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
  uint64_t end = text.end;
  if (end == 0) {  // no _etext: perf ends the kernel map where the next module starts
    end = UINT64_MAX;
    for (const auto& module : by_address)
      if (module.start > text.start) {
        end = module.start;
        break;
      }
  }
  std::string name = "[kernel.kallsyms]" + text.ref_name;
  auto sent = sink(perfdata::make_mmap(attr, kKernelPid, 0, text.start, end - text.start, text.start, name,
                                       PERF_RECORD_MISC_KERNEL, {}));
  if (!sent) return sent;
  for (const auto& module : by_address) {
    const std::string& file = module.path.empty() ? "[" + module.name + "]" : module.path;
    sent = sink(perfdata::make_mmap(attr, kKernelPid, 0, module.start, module.size, 0, file,
                                    PERF_RECORD_MISC_KERNEL, {}));
    if (!sent) return sent;
  }
  return {};
}

Result<void> synthesize_mmaps(const perf_event_attr& attr, pid_t pid, const SidebandOptions& options,
                              const RecordSink& sink) {
  std::string buffer;
  return emit_mmaps(attr, pid, options, sink, buffer);
}

Result<void> synthesize_threads(const perf_event_attr& attr, std::span<const pid_t> tids,
                                const SidebandOptions& options, const RecordSink& sink) {
  std::string buffer;
  auto leader = [&](pid_t tgid) -> Result<void> {
    auto stat = read_task_stat(fmt::format("{}/{}/stat", options.proc, tgid), buffer);
    if (!stat) return {};
    if (auto sent = emit_comm(attr, tgid, tgid, stat->comm, sink, options.proc); !sent) return sent;
    if (!options.mmaps || stat->kernel_thread) return {};
    return emit_mmaps(attr, tgid, options, sink, buffer);
  };
  for (pid_t tid : tids) {
    auto tgid = read_tgid(options.proc, tid, buffer);
    if (!tgid) continue;  // exited since the thread map was made
    if (*tgid == tid) {
      if (auto done = leader(tid); !done) return done;
      continue;
    }
    auto stat = read_task_stat(fmt::format("{}/{}/task/{}/stat", options.proc, *tgid, tid), buffer);
    if (!stat) continue;
    if (auto sent = emit_comm(attr, *tgid, tid, stat->comm, sink, options.proc); !sent) return sent;
    if (std::find(tids.begin(), tids.end(), *tgid) == tids.end()) {
      if (auto done = leader(*tgid); !done) return done;
    }
  }
  return {};
}

Result<void> synthesize_all_tasks(const perf_event_attr& attr, const SidebandOptions& options,
                                  const RecordSink& sink) {
  std::string buffer;
  for (pid_t pid : numeric_entries(options.proc)) {
    auto tids = list_threads(pid, options.proc);
    if (!tids) continue;
    for (pid_t tid : *tids) {
      auto stat = read_task_stat(fmt::format("{}/{}/task/{}/stat", options.proc, pid, tid), buffer);
      if (!stat) continue;
      // perf's parent for a thread is its leader; for a leader, the parent process.
      pid_t parent = tid == pid ? stat->ppid : pid;
      std::string fork =
          perfdata::make_fork_exit(attr, true, static_cast<uint32_t>(pid), static_cast<uint32_t>(parent),
                                   static_cast<uint32_t>(tid), static_cast<uint32_t>(parent), 0, {});
      // perf marks its synthesized FORKs so that perf report does not take them for a real fork.
      uint16_t misc = PERF_RECORD_MISC_FORK_EXEC;
      std::memcpy(fork.data() + offsetof(perf_event_header, misc), &misc, sizeof misc);
      if (auto sent = sink(fork); !sent) return sent;
      if (auto sent = emit_comm(attr, pid, tid, stat->comm, sink, options.proc); !sent) return sent;
      if (tid == pid && options.mmaps && !stat->kernel_thread) {
        if (auto sent = emit_mmaps(attr, pid, options, sink, buffer); !sent) return sent;
      }
    }
  }
  return {};
}

Result<std::vector<pid_t>> list_threads(pid_t pid, const std::string& proc) {
  auto tids = numeric_entries(fmt::format("{}/{}/task", proc, pid));
  if (tids.empty()) return failf("no process {}", pid);
  auto leader = std::find(tids.begin(), tids.end(), pid);
  if (leader != tids.end()) std::rotate(tids.begin(), leader, leader + 1);
  return tids;
}

}  // namespace sonde::capture
