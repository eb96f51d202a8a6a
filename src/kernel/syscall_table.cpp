#include "kernel/syscall_table.hpp"

#include <string>
#include <unordered_map>

namespace sonde::kernel {

namespace {

struct SyscallRow {
  const char* name;
  int number;
};

const SyscallRow kHeaderRows[] = {
#include "syscall_numbers.inc"
};

// x86_64 facts the build's UAPI header may not carry: tracepoints named after the kernel's
// SYSCALL_DEFINE rather than the __NR_ name, and syscalls newer than the header (numbers are
// never reused). A tracepoint missing here is counted by a real per-tracepoint event instead.
const SyscallRow kKernelRows[] = {
    {"newstat", 4},
    {"newfstat", 5},
    {"newlstat", 6},
    {"sendfile64", 40},
    {"newuname", 63},
    {"umount", 166},
    {"uretprobe", 335},
    {"uprobe", 336},
    {"cachestat", 451},
    {"fchmodat2", 452},
    {"map_shadow_stack", 453},
    {"futex_wake", 454},
    {"futex_wait", 455},
    {"futex_requeue", 456},
    {"statmount", 457},
    {"listmount", 458},
    {"lsm_get_self_attr", 459},
    {"lsm_set_self_attr", 460},
    {"lsm_list_modules", 461},
    {"mseal", 462},
    {"setxattrat", 463},
    {"getxattrat", 464},
    {"listxattrat", 465},
    {"removexattrat", 466},
    {"open_tree_attr", 467},
    {"file_getattr", 468},
    {"file_setattr", 469},
    {"listns", 470},
};

const std::unordered_map<std::string, int>& numbers_by_name() {
  static const auto table = [] {
    std::unordered_map<std::string, int> map;
    for (const auto& row : kHeaderRows) map.emplace(row.name, row.number);
    for (const auto& row : kKernelRows) map.emplace(row.name, row.number);
    return map;
  }();
  return table;
}

}  // namespace

std::string_view syscall_name(int number) {
  for (const auto& row : kHeaderRows)
    if (row.number == number) return row.name;
  for (const auto& row : kKernelRows)
    if (row.number == number) return row.name;
  return {};
}

std::optional<int> syscall_number(std::string_view name) {
  const auto& table = numbers_by_name();
  auto found = table.find(std::string(name));
  if (found == table.end()) return std::nullopt;
  return found->second;
}

std::vector<std::string_view> syscall_names(int highest_number) {
  std::vector<std::string_view> names(static_cast<size_t>(highest_number) + 1);
  for (const auto& row : kKernelRows)
    if (row.number <= highest_number) names[static_cast<size_t>(row.number)] = row.name;
  // The header's names win: they are the ones perf trace prints (stat, not newstat).
  for (const auto& row : kHeaderRows)
    if (row.number <= highest_number) names[static_cast<size_t>(row.number)] = row.name;
  return names;
}

std::vector<std::string_view> syscall_tracepoint_stems(int number) {
  std::vector<std::string_view> stems;
  for (const auto& row : kKernelRows)
    if (row.number == number) stems.push_back(row.name);
  for (const auto& row : kHeaderRows)
    if (row.number == number) stems.push_back(row.name);
  return stems;
}

std::optional<int> syscall_number_of_tracepoint(std::string_view tracepoint_name) {
  std::string_view name;
  if (tracepoint_name.starts_with("sys_enter_"))
    name = tracepoint_name.substr(10);
  else if (tracepoint_name.starts_with("sys_exit_"))
    name = tracepoint_name.substr(9);
  else
    return std::nullopt;
  const auto& table = numbers_by_name();
  auto found = table.find(std::string(name));
  if (found == table.end()) return std::nullopt;
  return found->second;
}

}  // namespace sonde::kernel
