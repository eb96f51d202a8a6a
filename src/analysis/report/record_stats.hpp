#pragma once
// perf report --stats: how many records of each type a file holds (its own records, perf's
// FINISHED_ROUND and the like included), and each event's samples and lost samples.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::analysis {

struct RecordStats {
  static constexpr size_t kTypes = 128;  // perf's record types all lie below this
  std::array<uint64_t, kTypes> by_type{};
  uint64_t total = 0;  // every record, those of types past kTypes included
  struct Event {
    std::string name;
    uint64_t samples = 0;
    uint64_t lost_samples = 0;
  };
  std::vector<Event> events;  // in the file's event order
};

// One replay of `input` ("-" a pipe) counting its records.
Result<RecordStats> count_records(const std::string& input, Diagnostics& diagnostics);

}  // namespace sonde::analysis
