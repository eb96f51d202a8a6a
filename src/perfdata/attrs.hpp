#pragma once
// The events of a perf.data file: each perf_event_attr with its sample ids and name, and the
// lookup from a record to the attr it belongs to (through PERF_SAMPLE_IDENTIFIER or
// PERF_SAMPLE_ID, at the positions perf's evlist computes).
#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.hpp"
#include "format/features.hpp"
#include "format/record_view.hpp"

namespace sonde::perfdata {

struct EventAttr {
  perf_event_attr attr{};
  std::vector<uint64_t> ids;
  std::string name;  // from EVENT_DESC when the file has it
};

class AttrTable {
 public:
  // Copies an attr of any size the file uses (smaller ones are zero-extended as the kernel does).
  Result<void> add(Bytes attr_bytes, std::span<const uint64_t> ids);
  void add(const perf_event_attr& attr, std::span<const uint64_t> ids);
  // Names (and ids, for files whose attrs section has none) from the EVENT_DESC feature.
  void apply_event_desc(const std::vector<EventDesc>& events);

  const std::vector<EventAttr>& events() const { return events_; }
  bool empty() const { return events_.empty(); }
  const EventAttr* by_id(uint64_t id) const;
  // The event a record belongs to; the only event when there is one; nullptr when the record
  // carries no id that the table knows (non-sample records without sample_id_all, say).
  const EventAttr* for_record(const RecordView& record) const;
  // perf refuses files whose events disagree on where the sample id sits; so do we, as a warning.
  std::string consistency_warning() const;

 private:
  std::vector<EventAttr> events_;
  std::unordered_map<uint64_t, size_t> index_by_id_;
};

// Where PERF_SAMPLE_ID/IDENTIFIER sit: in u64s from the start of a sample's body, and from the
// end of another record's sample_id trailer. -1 when the sample_type has neither.
int sample_id_position(uint64_t sample_type);
int trailer_id_position(uint64_t sample_type);

}  // namespace sonde::perfdata
