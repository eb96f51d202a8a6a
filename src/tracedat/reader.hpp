#pragma once
// Reads a trace.dat as trace-cmd 3.x writes it: version 6 (one block after another) and
// version 7 (sections found through options, each possibly zstd-compressed, and compressed
// CPU data in chunks). The event formats, kallsyms, printk formats and cmdlines go into a
// libtraceevent tep_handle (with its plugins, as trace-cmd report loads them); each buffer's
// per-CPU ring-buffer pages are viewed in place (mmap) or, when compressed, decompressed once.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.hpp"
#include "base/mapped_file.hpp"
#include "tracedat/kallsyms.hpp"
#include "tracedat/writer.hpp"

struct tep_handle;
struct tep_event;
struct tep_record;
struct tep_plugin_list;

namespace sonde::tracedat {

struct BufferCpu {
  int cpu = 0;
  std::span<const uint8_t> pages;  // whole ring-buffer pages, uncompressed
  // Where trace-cmd report --stat says the data is: the file offset and size, or for compressed
  // data trace-cmd's own offsets in its uncompressed view (page-aligned from one page on).
  uint64_t shown_offset = 0, shown_size = 0;
};

// One ring buffer of the file: the top one (name "") or an instance's.
struct Buffer {
  std::string name;
  std::vector<BufferCpu> cpus;  // in file order
};

// Whether `path` is a trace.dat (trace-cmd's magic) rather than a perf.data; false for "-".
bool is_trace_dat(const std::string& path);

class TraceDatReader {
 public:
  static Result<std::unique_ptr<TraceDatReader>> open(const std::string& path);
  ~TraceDatReader();
  TraceDatReader(const TraceDatReader&) = delete;
  TraceDatReader& operator=(const TraceDatReader&) = delete;

  tep_handle* tep() const { return tep_; }
  int version() const { return version_; }
  uint32_t page_size() const { return page_size_; }
  // What trace-cmd report prints as "cpus=": the CPU count of the recording machine.
  int cpu_count() const { return cpu_count_; }
  // buffers()[0] is the top buffer (possibly without CPUs); instances follow in file order.
  const std::vector<Buffer>& buffers() const { return buffers_; }
  // The CPUSTAT options joined as trace-cmd report --stat prints them; empty when none.
  const std::string& cpu_stats_text() const { return cpu_stats_; }
  // Timestamps are nanoseconds (local, global, mono... clocks); false for counter and x86-tsc.
  bool clock_in_ns() const { return clock_in_ns_; }
  // Applied to every raw timestamp (DATE/OFFSET options, TSC2NSEC conversion).
  unsigned long long adjust_timestamp(unsigned long long ts) const;
  // Event formats other than ftrace's are parsed into tep() when first needed: a file holds
  // every format of the machine (thousands), a trace uses a few. Returns whether the event
  // with this id is known now.
  bool load_event(int id) const;
  // The format of a record's event, parsed now if it was not yet; nullptr when the file has none.
  tep_event* record_format(const tep_record& record) const;
  // An event as the converters name it: "system:event", an instance buffer's prefixed with the
  // instance's name ("name/system:event"); "unknown:ID" without a format.
  std::string event_name(size_t buffer, int id, const tep_event* format) const;
  // Parses every remaining format (filters name events, so they need them all).
  void load_all_events() const;
  // The file's kallsyms, built on first use and installed as tep()'s function resolver. Only
  // symbolic payloads (%pS, function events, plugins, formats naming a symbol) use them, so
  // this is left to the first payload that may need them.
  const KernelFunctions& kernel_functions() const;

  // The file's metadata in the writer's form (CPU data not included), for rewriting it: a copy,
  // with the kallsyms text that the reader itself only views.
  TraceDatContents contents() const;

 private:
  TraceDatReader() = default;
  Result<void> parse(const std::string& path);

  std::optional<sonde::MappedFile> file_;
  tep_handle* tep_ = nullptr;
  tep_plugin_list* plugins_ = nullptr;
  int version_ = 0;
  uint32_t page_size_ = 0;
  int cpu_count_ = 0;
  std::vector<Buffer> buffers_;
  std::string cpu_stats_;
  bool clock_in_ns_ = true;
  long long ts_offset_ = 0;
  uint32_t tsc_mult_ = 0, tsc_shift_ = 0;
  unsigned long long tsc_offset_ = 0;
  TraceDatContents contents_;  // kallsyms left empty: see kallsyms_
  // The kallsyms section (~5 MB), viewed where it lies: in the mapping, or in a decompressed
  // block of decompressed_. Only symbolic payloads need it, so a report copies none of it.
  std::string_view kallsyms_;
  std::vector<std::vector<uint8_t>> decompressed_;  // backing store of compressed CPU data
  // Formats not parsed yet, by event id: (system index, format index) in contents_.
  mutable std::unordered_map<int, std::pair<size_t, size_t>> unparsed_;
  mutable std::vector<char> event_known_;  // by event id: 0 not asked yet, 1 loaded, 2 unknown
  mutable std::unique_ptr<KernelFunctions> kernel_functions_;

  friend class TraceDatParser;
};

}  // namespace sonde::tracedat
