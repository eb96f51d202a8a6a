#pragma once
// Counts what a file of raw ring-buffer pages holds (for the capture's summary line): pages,
// events, and the events the kernel flagged as missed between pages.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/error.hpp"

namespace sonde::ftrace {

struct PageCounts {
  uint64_t pages = 0;
  uint64_t events = 0;
  uint64_t missed = 0;            // events the kernel overwrote between two pages read, where it counted them
  bool missed_uncounted = false;  // a page says events were missed without saying how many
};

Result<PageCounts> count_page_events(const std::string& path, size_t page_size);

}  // namespace sonde::ftrace
