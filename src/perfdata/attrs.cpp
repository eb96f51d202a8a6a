#include "perfdata/attrs.hpp"

#include <algorithm>
#include <bit>

namespace sonde::perfdata {

int sample_id_position(uint64_t sample_type) {
  if (sample_type & PERF_SAMPLE_IDENTIFIER) return 0;
  if (!(sample_type & PERF_SAMPLE_ID)) return -1;
  // The fields the kernel writes before ID.
  uint64_t before = sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR);
  return std::popcount(before);
}

int trailer_id_position(uint64_t sample_type) {
  if (sample_type & PERF_SAMPLE_IDENTIFIER) return 1;
  if (!(sample_type & PERF_SAMPLE_ID)) return -1;
  // The trailer is TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER: count ID and what follows it.
  return 1 + std::popcount(sample_type & (PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU));
}

Result<void> AttrTable::add(Bytes attr_bytes, std::span<const uint64_t> ids) {
  if (attr_bytes.size() < PERF_ATTR_SIZE_VER0)
    return failf("attr of {} bytes is below the first published size 64", attr_bytes.size());
  perf_event_attr attr{};
  std::memcpy(&attr, attr_bytes.data(), std::min(attr_bytes.size(), sizeof attr));
  add(attr, ids);
  return {};
}

void AttrTable::add(const perf_event_attr& attr, std::span<const uint64_t> ids) {
  EventAttr event;
  event.attr = attr;
  event.ids.assign(ids.begin(), ids.end());
  for (uint64_t id : ids) index_by_id_.emplace(id, events_.size());
  events_.push_back(std::move(event));
}

void AttrTable::apply_event_desc(const std::vector<EventDesc>& descs) {
  for (size_t i = 0; i < descs.size() && i < events_.size(); ++i) {
    events_[i].name = descs[i].name;
    if (events_[i].ids.empty()) {
      events_[i].ids = descs[i].ids;
      for (uint64_t id : descs[i].ids) index_by_id_.emplace(id, i);
    }
  }
}

const EventAttr* AttrTable::by_id(uint64_t id) const {
  auto it = index_by_id_.find(id);
  return it == index_by_id_.end() ? nullptr : &events_[it->second];
}

const EventAttr* AttrTable::for_record(const RecordView& record) const {
  if (events_.empty()) return nullptr;
  if (events_.size() == 1) return &events_[0];
  const perf_event_attr& first = events_[0].attr;
  Bytes body = record.payload();
  uint64_t id = 0;
  if (record.type() == PERF_RECORD_SAMPLE) {
    int pos = sample_id_position(first.sample_type);
    if (pos < 0 || body.size() < (static_cast<size_t>(pos) + 1) * 8) return nullptr;
    id = load<uint64_t>(body.data() + static_cast<size_t>(pos) * 8);
  } else {
    if (!first.sample_id_all || record.type() >= PERF_RECORD_USER_TYPE_START) return nullptr;
    int pos = trailer_id_position(first.sample_type);
    if (pos < 0 || body.size() < static_cast<size_t>(pos) * 8) return nullptr;
    id = load<uint64_t>(body.data() + body.size() - static_cast<size_t>(pos) * 8);
  }
  return by_id(id);
}

std::string AttrTable::consistency_warning() const {
  if (events_.size() < 2) return {};
  for (const auto& event : events_) {
    if (sample_id_position(event.attr.sample_type) < 0)
      return "several events but not all sample PERF_SAMPLE_ID or IDENTIFIER: samples cannot be told apart";
    if (sample_id_position(event.attr.sample_type) != sample_id_position(events_[0].attr.sample_type) ||
        trailer_id_position(event.attr.sample_type) != trailer_id_position(events_[0].attr.sample_type))
      return "the events disagree on where the sample id sits (non matching sample_type)";
    if (event.attr.sample_id_all != events_[0].attr.sample_id_all)
      return "the events disagree on sample_id_all";
  }
  return {};
}

}  // namespace sonde::perfdata
