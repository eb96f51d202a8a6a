#pragma once
// Which events perf script shows: --time ranges, -C CPUs, and --comm/--pid/--tid threads.
// Time and thread filters apply to samples; the CPU filter to samples and side-band records.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.hpp"

namespace sonde::analysis {

struct TimeRange {
  uint64_t start = 0;  // 0: from the beginning
  uint64_t end = 0;    // 0: to the end
};

// perf's --time: "start,stop" in seconds with up to nine decimals, either side may be empty;
// several ranges separated by spaces.
Result<std::vector<TimeRange>> parse_time_ranges(std::string_view text);
// perf's --time with its percent forms as well: "10%/2" (the second tenth), "10%/1,10%/3",
// "0%-10%", "0%-10%,50%-60%", of the span between the file's first and last sample
// (`sample_times`, from its SAMPLE_TIME feature; a percent form without them is an error).
Result<std::vector<TimeRange>> parse_time_slices(std::string_view text,
                                                 std::optional<std::pair<uint64_t, uint64_t>> sample_times);
// perf's test: a sample outside every range is skipped; one without a time (0) never is.
bool outside_time_ranges(const std::vector<TimeRange>& ranges, uint64_t time);
// perf's seconds.fraction timestamp ("10040.658472") in nanoseconds.
Result<uint64_t> parse_timestamp(std::string_view text);

class ScriptFilter {
 public:
  std::vector<TimeRange> times;
  std::vector<bool> cpus;  // empty: every CPU
  std::vector<std::string> comms;
  std::vector<int32_t> pids, tids;

  // --dsos: a sample's DSO by short or long name; a sample outside every map is dropped.
  std::vector<std::string> dsos;
  // -S/--symbols, as perf splits it: entries that read as hex numbers are addresses, the rest
  // symbol names or a symbol's start as "0x..."; --addr-range widens each address to a range.
  bool filters_symbols = false;
  std::vector<std::string> symbols;
  std::vector<uint64_t> symbol_addresses;
  uint64_t address_range = 0;

  // perf: a sample without a time (0) is never dropped by --time.
  bool skip_time(uint64_t time) const;
  // A record without a CPU ((uint32_t)-1) is never dropped by -C.
  bool skip_cpu(uint32_t cpu) const;
  bool skip_thread(std::string_view comm, int32_t pid, int32_t tid) const;
  bool filters_threads() const { return !comms.empty() || !pids.empty() || !tids.empty(); }
  bool filters_places() const { return !dsos.empty() || filters_symbols; }
  // `mapped`: a map covers the sample's address; the names are its DSO's.
  bool skip_dso(bool mapped, std::string_view short_name, std::string_view long_name) const;
  // `symbol`: the sample's symbol name, or nullptr; `symbol_start` its start at run time.
  bool skip_symbol(const std::string_view* symbol, uint64_t symbol_start, bool mapped,
                   uint64_t address) const;
  // Fills the -S lists from its text (perf's setup_addrlist rule for what is an address).
  void set_symbol_list(std::string_view text);
};

// perf's comma (or space) separated lists for --comm, --pid, --tid.
std::vector<std::string> split_list(std::string_view text);
// perf's strlist: comma separated only, entries kept as written (--dsos, -S).
std::vector<std::string> split_comma_list(std::string_view text);
Result<std::vector<int32_t>> parse_id_list(std::string_view text, std::string_view option);

}  // namespace sonde::analysis
