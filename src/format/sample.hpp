#pragma once
// PERF_RECORD_SAMPLE decoded in place, and the sample_id trailer of other records. The fields
// a sample carries depend on its attr: each field below names the PERF_SAMPLE_* bit (or
// read_format / sample_regs_* setting) that makes it valid. Arrays stay views into the record.
#include <linux/perf_event.h>

#include <cstdint>
#include <optional>

#include "base/error.hpp"
#include "format/record_view.hpp"

namespace sonde::perfdata {

// A run of u64s inside a record, read without assuming alignment.
struct U64Array {
  Bytes bytes;
  size_t size() const { return bytes.size() / sizeof(uint64_t); }
  bool empty() const { return bytes.empty(); }
  uint64_t operator[](size_t i) const { return load<uint64_t>(bytes.data() + i * sizeof(uint64_t)); }
};

// PERF_SAMPLE_READ, laid out by attr.read_format.
struct ReadValues {
  struct Value {
    uint64_t value = 0;
    uint64_t id = 0;    // PERF_FORMAT_ID
    uint64_t lost = 0;  // PERF_FORMAT_LOST
  };
  uint64_t read_format = 0;
  uint64_t time_enabled = 0;  // PERF_FORMAT_TOTAL_TIME_ENABLED
  uint64_t time_running = 0;  // PERF_FORMAT_TOTAL_TIME_RUNNING
  size_t nr = 0;              // 1, or the group's size with PERF_FORMAT_GROUP
  Value single;               // without PERF_FORMAT_GROUP
  Bytes group_values;         // with PERF_FORMAT_GROUP: nr entries of value, [id], [lost]
  size_t stride = 1;          // u64s per group entry
  Value value(size_t i) const;
};

// Registers as the kernel dumps them: values for the bits of the attr's mask, in bit order.
struct Regs {
  uint64_t abi = 0;  // PERF_SAMPLE_REGS_ABI_*; 0: no registers (a kernel thread, say)
  uint64_t mask = 0;
  U64Array values;
  // The value of register `reg` (a bit of mask), or nullopt when not dumped.
  std::optional<uint64_t> get(int reg) const;
};

struct Sample {
  uint64_t sample_type = 0;          // the attr's, for telling which fields are set
  uint64_t identifier = 0;           // PERF_SAMPLE_IDENTIFIER
  uint64_t ip = 0;                   // PERF_SAMPLE_IP
  uint32_t pid = 0;                  // PERF_SAMPLE_TID
  uint32_t tid = 0;                  // PERF_SAMPLE_TID
  uint64_t time = 0;                 // PERF_SAMPLE_TIME
  uint64_t addr = 0;                 // PERF_SAMPLE_ADDR
  uint64_t id = 0;                   // PERF_SAMPLE_ID (or IDENTIFIER when only that is set)
  uint64_t stream_id = 0;            // PERF_SAMPLE_STREAM_ID
  uint32_t cpu = 0;                  // PERF_SAMPLE_CPU
  uint64_t period = 0;               // PERF_SAMPLE_PERIOD
  ReadValues read;                   // PERF_SAMPLE_READ
  U64Array callchain;                // PERF_SAMPLE_CALLCHAIN: ips, with PERF_CONTEXT_* markers
  Bytes raw;                         // PERF_SAMPLE_RAW: the tracepoint's fields (padding included)
  uint64_t branch_nr = 0;            // PERF_SAMPLE_BRANCH_STACK: entries are skipped, not decoded
  Regs regs_user;                    // PERF_SAMPLE_REGS_USER (attr.sample_regs_user)
  Bytes stack_user;                  // PERF_SAMPLE_STACK_USER: the copied stack, dyn_size bytes valid
  uint64_t stack_user_dyn_size = 0;  // PERF_SAMPLE_STACK_USER
  uint32_t stack_user_offset = 0;    // PERF_SAMPLE_STACK_USER: where its size field sits in the record
  uint64_t weight = 0;               // PERF_SAMPLE_WEIGHT or PERF_SAMPLE_WEIGHT_STRUCT
  uint64_t data_src = 0;             // PERF_SAMPLE_DATA_SRC
  uint64_t transaction = 0;          // PERF_SAMPLE_TRANSACTION
  Regs regs_intr;                    // PERF_SAMPLE_REGS_INTR (attr.sample_regs_intr)
  uint64_t phys_addr = 0;            // PERF_SAMPLE_PHYS_ADDR
  uint64_t cgroup = 0;               // PERF_SAMPLE_CGROUP
  uint64_t data_page_size = 0;       // PERF_SAMPLE_DATA_PAGE_SIZE
  uint64_t code_page_size = 0;       // PERF_SAMPLE_CODE_PAGE_SIZE
  Bytes aux;                         // PERF_SAMPLE_AUX

  bool has(uint64_t bit) const { return sample_type & bit; }
};

// Decodes a PERF_RECORD_SAMPLE by `attr`. A field that runs past the record is an error naming
// the field and the record's offset.
Result<Sample> decode_sample(const RecordView& record, const perf_event_attr& attr);
// The same into `out` (reset first): a caller decoding a million samples reuses one Sample.
Result<void> decode_sample_into(const RecordView& record, const perf_event_attr& attr, Sample& out);

// PERF_SAMPLE_TIME of a sample, read at its fixed place (after IDENTIFIER, IP and TID) without
// decoding the rest: what time-ordering needs before the sample is decoded once, at delivery.
// nullopt when the attr has no TIME or the record is too short to hold it.
std::optional<uint64_t> sample_time(const RecordView& record, const perf_event_attr& attr);

// The sample_id trailer of a non-sample record (attr.sample_id_all): in this order, TID, TIME,
// ID, STREAM_ID, CPU, IDENTIFIER, each when its bit is in the attr's sample_type.
struct SampleId {
  bool present = false;       // false: the attr has no sample_id_all, nothing was decoded
  uint32_t pid = 0, tid = 0;  // PERF_SAMPLE_TID
  uint64_t time = 0;          // PERF_SAMPLE_TIME
  uint64_t id = 0;            // PERF_SAMPLE_ID or PERF_SAMPLE_IDENTIFIER
  uint64_t stream_id = 0;     // PERF_SAMPLE_STREAM_ID
  uint32_t cpu = 0;           // PERF_SAMPLE_CPU
};

// Bytes the trailer takes for `attr` (0 without sample_id_all).
size_t sample_id_size(const perf_event_attr& attr);
Result<SampleId> decode_sample_id(const RecordView& record, const perf_event_attr& attr);

}  // namespace sonde::perfdata
