#include "analysis/lock/lock_wait_totals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "symbols/kernel_symbols.hpp"

namespace sonde::analysis {

Result<LockContention> lock_contention_from_totals(std::vector<LockWaitTotalRow> rows, uint64_t lost,
                                                   const LockOptions& options) {
  bool by_task = options.aggregation == LockAggregation::task;
  std::optional<symbols::KernelSymbols> kernel;
  std::vector<std::pair<uint64_t, uint64_t>> lock_code;
  if (!by_task) {
    auto loaded = symbols::load_kallsyms(options.kallsyms);
    if (!loaded) return tl::unexpected(loaded.error().with_context("naming the lock callers"));
    kernel = std::move(*loaded);
    lock_code = kernel_lock_text(options.kallsyms);
  }
  auto symbol_at = [&](uint64_t address) -> const symbols::Symbol* {
    if (const symbols::Symbol* symbol = kernel->kernel.find(address)) return symbol;
    for (const auto& [module, table] : kernel->modules)
      if (const symbols::Symbol* symbol = table.find(address)) return symbol;
    return nullptr;
  };
  auto is_lock_code = [&](uint64_t address) {
    return std::any_of(lock_code.begin(), lock_code.end(),
                       [&](const auto& range) { return range.first <= address && address < range.second; });
  };
  // A stable order before the sort by key, so ties do not depend on the kernel's hash map.
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  LockContention result;
  result.measured_in_kernel = true;
  result.bad_histogram[2] = static_cast<int>(std::min<uint64_t>(lost, INT32_MAX));
  for (LockWaitTotalRow& row : rows) {
    LockStat stat;
    stat.key = row.id;
    stat.flags = row.flags;
    stat.nr_contended = stat.nr_acquired = row.count;
    stat.wait_total = row.total_ns;
    stat.wait_max = row.max_ns;
    stat.wait_min = row.min_ns;
    stat.avg_wait = row.count ? row.total_ns / row.count : 0;
    if (by_task) {
      stat.name = row.comm.empty() ? fmt::format(":{}", row.id) : row.comm;
    } else {
      size_t at = 0;
      size_t limit = std::min<size_t>(row.stack.size(), static_cast<size_t>(std::max(options.max_stack, 1)));
      while (at + 1 < limit && is_lock_code(row.stack[at])) ++at;
      uint64_t caller = at < row.stack.size() ? row.stack[at] : 0;
      const symbols::Symbol* symbol = caller ? symbol_at(caller) : nullptr;
      if (symbol == nullptr)
        stat.name = fmt::format("{:#x}", caller);
      else
        stat.name = caller != symbol->start ? fmt::format("{}+{:#x}", symbol->name, caller - symbol->start)
                                            : std::string(symbol->name);
      if (options.save_callstacks)
        for (uint64_t frame : row.stack) {
          const symbols::Symbol* named = symbol_at(frame);
          stat.callstack.emplace_back(
              frame, named ? fmt::format("{}+{:#x}", named->name, frame - named->start) : std::string());
        }
    }
    result.stats.push_back(std::move(stat));
  }
  const LockField key = options.key;
  std::stable_sort(result.stats.begin(), result.stats.end(),
                   [&](const LockStat& a, const LockStat& b) { return a.value(key) > b.value(key); });
  return result;
}

}  // namespace sonde::analysis
