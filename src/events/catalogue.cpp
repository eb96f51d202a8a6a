#include "events/catalogue.hpp"

#include <fmt/format.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <array>

namespace sonde::events {

namespace {

constexpr SymbolEvent kHardware[] = {
    {"cpu-cycles", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branch-instructions", "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"bus-cycles", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
    {"stalled-cycles-frontend", "idle-cycles-frontend", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"stalled-cycles-backend", "idle-cycles-backend", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"ref-cycles", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
};

constexpr SymbolEvent kSoftware[] = {
    {"cpu-clock", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"minor-faults", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"alignment-faults", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
    {"emulation-faults", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
    {"dummy", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY},
    {"bpf-output", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT},
    {"cgroup-switches", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES},
};

// perf's spellings (evsel__hw_cache*), the first of each row being the one perf list shows.
using Aliases = std::array<std::string_view, 5>;
constexpr Aliases kCacheTypes[] = {
    {"L1-dcache", "l1-d", "l1d", "L1-data"},
    {"L1-icache", "l1-i", "l1i", "L1-instruction"},
    {"LLC", "L2"},
    {"dTLB", "d-tlb", "Data-TLB"},
    {"iTLB", "i-tlb", "Instruction-TLB"},
    {"branch", "branches", "bpu", "btb", "bpc"},
    {"node"},
};
constexpr Aliases kCacheOps[] = {
    {"load", "loads", "read"},
    {"store", "stores", "write"},
    {"prefetch", "prefetches", "speculative-read", "speculative-load"},
};
constexpr Aliases kCacheResults[] = {
    {"refs", "Reference", "ops", "access"},
    {"misses", "miss"},
};
// Which operations each cache has (perf's evsel__hw_cache_stat): the L1 instruction cache is
// never written, iTLB and the branch predictor are only read.
constexpr unsigned kRead = 1u << PERF_COUNT_HW_CACHE_OP_READ;
constexpr unsigned kWrite = 1u << PERF_COUNT_HW_CACHE_OP_WRITE;
constexpr unsigned kPrefetch = 1u << PERF_COUNT_HW_CACHE_OP_PREFETCH;
constexpr unsigned kCacheOpsValid[] = {kRead | kWrite | kPrefetch,
                                       kRead | kPrefetch,
                                       kRead | kWrite | kPrefetch,
                                       kRead | kWrite | kPrefetch,
                                       kRead,
                                       kRead,
                                       kRead | kWrite | kPrefetch};

// The row whose spelling is the longest prefix of `text` ending at '-' or the end of text;
// -1 when none. `length` receives the spelling's length.
template <size_t N>
int match_prefix(const Aliases (&table)[N], std::string_view text, size_t& length) {
  int best = -1;
  length = 0;
  for (size_t row = 0; row < N; ++row) {
    for (std::string_view spelling : table[row]) {
      if (spelling.empty() || spelling.size() <= length || !text.starts_with(spelling)) continue;
      if (text.size() > spelling.size() && text[spelling.size()] != '-') continue;
      best = static_cast<int>(row);
      length = spelling.size();
    }
  }
  return best;
}

}  // namespace

std::span<const SymbolEvent> hardware_events() { return kHardware; }
std::span<const SymbolEvent> software_events() { return kSoftware; }

const SymbolEvent* find_symbol_event(std::string_view name) {
  for (std::span<const SymbolEvent> table :
       {std::span<const SymbolEvent>(kHardware), std::span<const SymbolEvent>(kSoftware)}) {
    for (const auto& event : table)
      if (event.name == name || (!event.alias.empty() && event.alias == name)) return &event;
  }
  return nullptr;
}

std::optional<tl::expected<uint64_t, CacheEventError>> parse_cache_event(std::string_view word) {
  size_t length = 0;
  int type = match_prefix(kCacheTypes, word, length);
  if (type < 0) return std::nullopt;
  auto wrong = [](size_t offset, std::string message) {
    return tl::unexpected(CacheEventError{offset, std::move(message)});
  };
  int op = -1;
  int result = -1;
  size_t offset = length;
  // At most an operation and a result, in either order, as perf's grammar allows.
  for (int part = 0; offset < word.size(); ++part) {
    ++offset;  // the '-'
    std::string_view rest = word.substr(offset);
    if (part == 2) {
      return wrong(offset - 1, "a cache event takes at most an operation and a result");
    }
    size_t op_length = 0;
    size_t result_length = 0;
    int op_row = match_prefix(kCacheOps, rest, op_length);
    int result_row = match_prefix(kCacheResults, rest, result_length);
    if (op_row >= 0 && op < 0) {
      if (!(kCacheOpsValid[type] & (1u << op_row))) {
        return wrong(offset,
                     fmt::format("'{}' has no {} events", kCacheTypes[type][0], kCacheOps[op_row][0]));
      }
      op = op_row;
      offset += op_length;
    } else if (result_row >= 0 && result < 0) {
      result = result_row;
      offset += result_length;
    } else {
      return wrong(offset,
                   op_row >= 0 || result_row >= 0
                       ? "repeated cache operation or result"
                       : "unknown cache operation or result (load, store, prefetch, refs, misses...)");
    }
  }
  // As perf: no operation means reads, no result means accesses.
  if (op < 0) op = PERF_COUNT_HW_CACHE_OP_READ;
  if (result < 0) result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
  return static_cast<uint64_t>(type) | (static_cast<uint64_t>(op) << 8) |
         (static_cast<uint64_t>(result) << 16);
}

std::vector<std::string> cache_event_names() {
  std::vector<std::string> names;
  for (size_t type = 0; type < std::size(kCacheTypes); ++type) {
    for (size_t op = 0; op < std::size(kCacheOps); ++op) {
      if (!(kCacheOpsValid[type] & (1u << op))) continue;
      names.push_back(fmt::format("{}-{}", kCacheTypes[type][0], kCacheOps[op][1]));
      names.push_back(fmt::format("{}-{}-{}", kCacheTypes[type][0], kCacheOps[op][0], kCacheResults[1][0]));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace sonde::events
