#include "analysis/report/record_stats.hpp"

#include "format/perf_format.hpp"
#include "session/session.hpp"

namespace sonde::analysis {

namespace {

class RecordCounter : public session::SessionVisitor {
 public:
  explicit RecordCounter(RecordStats& stats) : stats_(stats) {}

  void on_sample(const session::SampleEvent& sample) override {
    count(PERF_RECORD_SAMPLE);
    event_at(sample.event_index).samples++;
  }
  Result<void> on_record(const perfdata::RecordView& record, const perfdata::EventAttr* attr,
                         const perfdata::SampleId& /*id*/) override {
    count(record.type());
    if (record.type() == PERF_RECORD_LOST_SAMPLES && attr != nullptr && events_ != nullptr) {
      // The record's sample_id names its event; LOST_SAMPLES' payload is the count.
      for (size_t i = 0; i < events_->size(); ++i)
        if (&(*events_)[i] == attr && record.payload().size() >= sizeof(uint64_t))
          event_at(i).lost_samples += load<uint64_t>(record.payload().data());
    }
    return {};
  }
  void set_events(const std::vector<perfdata::EventAttr>* events) { events_ = events; }

 private:
  void count(uint32_t type) {
    stats_.total++;
    if (type < RecordStats::kTypes) stats_.by_type[type]++;
  }
  RecordStats::Event& event_at(size_t index) {
    if (stats_.events.size() <= index) stats_.events.resize(index + 1);
    return stats_.events[index];
  }
  RecordStats& stats_;
  const std::vector<perfdata::EventAttr>* events_ = nullptr;
};

}  // namespace

Result<RecordStats> count_records(const std::string& input, Diagnostics& diagnostics) {
  auto session = session::Session::open(input, diagnostics);
  if (!session) return tl::unexpected(session.error());
  RecordStats stats;
  RecordCounter counter(stats);
  counter.set_events(&session->reader().attrs().events());
  if (auto done = session->process(counter); !done) return tl::unexpected(done.error());
  // The records a COMPRESSED record held were counted one by one; the container counts too.
  for (uint32_t type : {perfdata::PERF_RECORD_COMPRESSED, perfdata::PERF_RECORD_COMPRESSED2}) {
    uint64_t containers = session->reader().compressed_records(type);
    stats.by_type[type] += containers;
    stats.total += containers;
  }
  const auto& events = session->reader().attrs().events();
  if (stats.events.size() < events.size()) stats.events.resize(events.size());
  for (size_t i = 0; i < events.size(); ++i) stats.events[i].name = session::event_name(events[i]);
  return stats;
}

}  // namespace sonde::analysis
