#include "capture/open_event.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <optional>
#include <string_view>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "events/modifiers.hpp"

namespace sonde::capture {

Result<kernel::PerfEventFd> open_event(perf_event_attr& attr, pid_t pid, int cpu, int group_fd,
                                       unsigned long flags) {
  auto fd = kernel::PerfEventFd::open(attr, pid, cpu, group_fd, flags);
  if (!fd && fd.error().sys_errno == EINVAL && (attr.exclude_guest || attr.exclude_host)) {
    attr.exclude_guest = attr.exclude_host = 0;
    fd = kernel::PerfEventFd::open(attr, pid, cpu, group_fd, flags);
  }
  return fd;
}

Result<void> fall_back_to_cpu_clock(std::vector<events::EventSpec>& events, Diagnostics& diagnostics) {
  for (auto& event : events) {
    if (event.attr.type != PERF_TYPE_HARDWARE) continue;
    perf_event_attr probe = event.attr;
    probe.disabled = 1;
    auto fd = open_event(probe, 0, -1);
    int err = fd ? 0 : fd.error().sys_errno;
    // The errors perf's evsel__fallback takes for "no such hardware event here".
    if (err != ENOENT && err != ENXIO && err != ENODEV && err != EOPNOTSUPP) continue;
    if ((event.attr.config & 0xffffffff) != PERF_COUNT_HW_CPU_CYCLES)
      return fail(fmt::format("The {} event is not supported.", event.name));
    diagnostics.note("The cycles event is not supported, trying to fall back to cpu-clock-ticks");
    event.attr.type = PERF_TYPE_SOFTWARE;
    event.attr.config = PERF_COUNT_SW_CPU_CLOCK;
    // perf drops the name and makes a new one from the attr: "cycles:u" becomes "cpu-clock:uH".
    event.name = "cpu-clock" + events::modifier_suffix_from_attr(event.attr);
  }
  return {};
}

namespace {

std::optional<int> perf_event_paranoid() {
  auto text = read_file("/proc/sys/kernel/perf_event_paranoid");
  if (!text) return std::nullopt;
  // -1 is a legal setting: the sign is read apart.
  std::string_view value = trim(*text);
  bool negative = value.starts_with('-');
  auto magnitude = parse_uint(negative ? value.substr(1) : value, 10);
  if (!magnitude || *magnitude > 1000) return std::nullopt;
  return negative ? -static_cast<int>(*magnitude) : static_cast<int>(*magnitude);
}

bool refused_by_permission(int err) { return err == EACCES || err == EPERM; }

// CAP_PERFMON or CAP_SYS_ADMIN in the effective set: the kernel then lets every event count the
// kernel, whatever the setting (root in a user namespace may have neither).
bool may_count_the_kernel() {
  auto status = read_file("/proc/self/status");
  if (!status) return false;
  for (const std::string& line : split(*status, '\n')) {
    if (!line.starts_with("CapEff:")) continue;
    auto caps = parse_uint(trim(std::string_view(line).substr(7)), 16);
    constexpr int kCapSysAdmin = 21, kCapPerfmon = 38;
    return caps && (*caps & ((1ULL << kCapSysAdmin) | (1ULL << kCapPerfmon))) != 0;
  }
  return false;
}

}  // namespace

void fall_back_to_user_only(std::vector<events::EventSpec>& events, Diagnostics& diagnostics) {
  // Privileged, or a setting that lets the kernel be counted: nothing to fall back from, and no
  // probing.
  if (perf_event_paranoid().value_or(2) <= 1 || may_count_the_kernel()) return;
  for (auto& event : events) {
    // A tracepoint's permission does not depend on the kernel being excluded.
    if (event.attr.type == PERF_TYPE_TRACEPOINT || event.attr.exclude_kernel || event.attr.exclude_user)
      continue;
    perf_event_attr probe = event.attr;
    probe.disabled = 1;
    auto fd = open_event(probe, 0, -1);
    if (fd || !refused_by_permission(fd.error().sys_errno)) continue;
    probe.exclude_kernel = probe.exclude_hv = 1;
    // Refused by permission again: user space only does not help (a tracepoint). Any other
    // error (no such PMU here) is the real open's to report, for the event as it will be.
    if (auto user_only = open_event(probe, 0, -1);
        !user_only && refused_by_permission(user_only.error().sys_errno))
      continue;
    diagnostics.notef(
        "kernel.perf_event_paranoid={}, trying to fall back to excluding kernel and hypervisor samples",
        perf_event_paranoid().value_or(2));
    event.attr.exclude_kernel = event.attr.exclude_hv = 1;
    bool has_modifiers = event.name.find_first_of(":/") != std::string::npos;
    event.name += has_modifiers ? "u" : ":u";
  }
}

std::string permission_hint(int err, bool every_cpu) {
  if (!refused_by_permission(err)) return "";
  auto paranoid = perf_event_paranoid();
  std::string now = paranoid ? fmt::format(" (it is {})", *paranoid) : "";
  if (every_cpu)
    return fmt::format(
        "; watching every CPU needs root, CAP_PERFMON or kernel.perf_event_paranoid at 0 or below{}", now);
  return fmt::format(
      "; run as root or lower kernel.perf_event_paranoid{}: 2 allows user space only, 1 the kernel too", now);
}

}  // namespace sonde::capture
