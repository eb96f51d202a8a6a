#include "events/branch_filter.hpp"

#include <fmt/format.h>
#include <linux/perf_event.h>

#include <utility>

#include "base/strings.hpp"

namespace sonde::events {

Result<uint64_t> parse_branch_filter(std::string_view list) {
  // perf 6.1's branch_modes table, its names and bits.
  static constexpr std::pair<std::string_view, uint64_t> kModes[] = {
      {"u", PERF_SAMPLE_BRANCH_USER},
      {"k", PERF_SAMPLE_BRANCH_KERNEL},
      {"hv", PERF_SAMPLE_BRANCH_HV},
      {"any", PERF_SAMPLE_BRANCH_ANY},
      {"any_call", PERF_SAMPLE_BRANCH_ANY_CALL},
      {"any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN},
      {"ind_call", PERF_SAMPLE_BRANCH_IND_CALL},
      {"abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX},
      {"in_tx", PERF_SAMPLE_BRANCH_IN_TX},
      {"no_tx", PERF_SAMPLE_BRANCH_NO_TX},
      {"cond", PERF_SAMPLE_BRANCH_COND},
      {"ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP},
      {"call", PERF_SAMPLE_BRANCH_CALL},
      {"save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE},
      {"stack", PERF_SAMPLE_BRANCH_CALL_STACK},
  };
  uint64_t mask = 0;
  for (const std::string& name : split(list, ',')) {
    uint64_t bit = 0;
    for (const auto& [mode, mode_bit] : kModes)
      if (name == mode) bit = mode_bit;
    if (bit == 0)
      return fail(
          fmt::format("unknown branch filter {}; give any, any_call, any_ret, ind_call, ind_jmp, call, "
                      "cond, abort_tx, in_tx, no_tx, save_type, stack, u, k or hv",
                      name));
    mask |= bit;
  }
  constexpr uint64_t kPrivileges =
      PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV;
  if ((mask & ~kPrivileges) == 0) mask |= PERF_SAMPLE_BRANCH_ANY;
  return mask;
}

}  // namespace sonde::events
