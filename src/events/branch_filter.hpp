#pragma once
// perf record's -j/--branch-filter: the branch stack a sample carries, as PERF_SAMPLE_BRANCH_*
// bits.
#include <cstdint>
#include <string_view>

#include "base/error.hpp"

namespace sonde::events {

// "any_call,u" → PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER. As perf: privilege levels
// alone (u, k, hv) mean any branch at those levels; an unknown name is an error naming it.
Result<uint64_t> parse_branch_filter(std::string_view list);

}  // namespace sonde::events
