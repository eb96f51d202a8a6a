#include "pipeline/inject_run.hpp"

#include <unistd.h>

#include <set>

#include "base/bytes.hpp"
#include "format/build_ids.hpp"
#include "format/perf_format.hpp"
#include "perfdata/kernel_records.hpp"
#include "perfdata/writer.hpp"
#include "session/session.hpp"

namespace sonde::pipeline {

namespace {

constexpr size_t kRecordsPerRound = 10000;

class InjectPass : public session::SessionVisitor {
 public:
  InjectPass(const InjectOptions& options, session::Session& session)
      : options_(options), session_(session) {}

  void on_sample(const session::SampleEvent& sample) override {
    if (!start()) return;
    if (options_.build_ids) {
      session::Location location = session_.machine().locate(sample.thread, sample.cpumode, sample.sample.ip);
      if (location.dso != nullptr) inject_build_id(*location.dso);
    }
    copy(sample.record);
  }

  Result<void> on_record(const perfdata::RecordView& record, const perfdata::EventAttr*,
                         const perfdata::SampleId&) override {
    uint32_t type = record.type();
    // The header's records are written again from the attrs and features; round ends are the
    // input's in file order, sonde's own in time order.
    if (perfdata::PerfDataReader::changes_header(type) || type == perfdata::PERF_RECORD_HEADER_EVENT_TYPE)
      return {};
    if (type == perfdata::PERF_RECORD_FINISHED_ROUND && options_.build_ids) return {};
    if (!start()) return tl::unexpected(*failure_);
    if (options_.buildid_all && (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2))
      inject_mapped(record);
    copy(record);
    if (failure_) return tl::unexpected(*failure_);
    return {};
  }

  Result<InjectStats> finish() {
    if (!start()) return tl::unexpected(*failure_);
    if (auto done = writer_->finalize(features_with_injected()); !done) return tl::unexpected(done.error());
    return stats_;
  }

 private:
  // The writer starts at the first record of the data: by then a pipe's header records are in.
  bool start() {
    if (failure_) return false;
    if (writer_) return true;
    perfdata::PerfDataReader& reader = session_.reader();
    auto writer = options_.output == "-" ? perfdata::PerfDataWriter::to_pipe(STDOUT_FILENO)
                                         : perfdata::PerfDataWriter::create(options_.output);
    if (!writer) return fail(writer.error());
    writer_.emplace(std::move(*writer));
    std::vector<perfdata::AttrWithIds> attrs;
    for (const auto& event : reader.attrs().events()) attrs.push_back({event.attr, event.ids});
    if (auto written = writer_->write_attrs(attrs); !written) return fail(written.error());
    features_ = reader.features();
    features_.compressed.reset();  // the records go out opened up
    Bytes tracing = reader.tracing_data();
    if (!tracing.empty())
      features_.tracing_data = std::string(reinterpret_cast<const char*>(tracing.data()), tracing.size());
    if (features_.build_ids)
      for (const auto& entry : *features_.build_ids) named_.insert(entry.filename);
    if (writer_->is_pipe())
      if (auto written = writer_->write_pipe_features(features_); !written) return fail(written.error());
    return true;
  }

  bool fail(const Error& error) {
    failure_ = error;
    return false;
  }

  void copy(const perfdata::RecordView& record) {
    if (failure_) return;
    if (auto written = writer_->append(record.bytes.data(), record.header.size); !written) {
      fail(written.error());
      return;
    }
    ++stats_.records;
    if (options_.build_ids && stats_.records % kRecordsPerRound == 0) {
      perf_event_header round{perfdata::PERF_RECORD_FINISHED_ROUND, 0, sizeof(perf_event_header)};
      if (auto written = writer_->append_record(round, nullptr); !written) fail(written.error());
    }
  }

  // perf's dso__inject_build_id: a HEADER_BUILD_ID record for the DSO, once, when it has one.
  void inject_build_id(session::Dso& dso) {
    if (dso.hit) return;
    dso.hit = true;
    if (named_.count(dso.long_name)) return;
    format::DsoRef ref{dso.long_name, dso.is_kernel()};
    std::vector<perfdata::BuildIdEntry> entries = build_ids_.entries(std::span(&ref, 1));
    if (entries.empty()) return;
    named_.insert(dso.long_name);
    ByteWriter bytes;
    perfdata::encode_build_id(entries.front(), perfdata::PERF_RECORD_HEADER_BUILD_ID, bytes);
    if (auto written = writer_->append(bytes.str().data(), bytes.size()); !written) {
      fail(written.error());
      return;
    }
    injected_.push_back(std::move(entries.front()));
    ++stats_.records;
    ++stats_.build_id_records;
  }

  void inject_mapped(const perfdata::RecordView& record) {
    uint64_t address = 0;
    int32_t tid = -1;
    if (record.type() == PERF_RECORD_MMAP) {
      auto mmap = perfdata::MmapRecord::decode(record);
      if (!mmap) return;
      address = mmap->addr, tid = static_cast<int32_t>(mmap->tid);
    } else {
      auto mmap = perfdata::Mmap2Record::decode(record);
      if (!mmap || mmap->has_build_id) return;
      address = mmap->addr, tid = static_cast<int32_t>(mmap->tid);
    }
    const session::Thread* thread = session_.machine().find_thread(tid);
    session::Thread kernel_side;
    session::Location location =
        session_.machine().locate(thread != nullptr ? *thread : kernel_side, record.cpumode(), address);
    if (location.dso != nullptr) inject_build_id(*location.dso);
  }

  perfdata::FeatureSet features_with_injected() {
    perfdata::FeatureSet features = features_;
    if (!injected_.empty()) {
      if (!features.build_ids) features.build_ids.emplace();
      features.build_ids->insert(features.build_ids->end(), injected_.begin(), injected_.end());
    }
    return features;
  }

  const InjectOptions& options_;
  session::Session& session_;
  std::optional<perfdata::PerfDataWriter> writer_;
  std::optional<Error> failure_;
  perfdata::FeatureSet features_;
  format::BuildIdCache build_ids_;
  std::set<std::string> named_;  // DSOs the output names a build-id of
  std::vector<perfdata::BuildIdEntry> injected_;
  InjectStats stats_;
};

}  // namespace

Result<InjectStats> run_inject(const InjectOptions& options, Diagnostics& diagnostics) {
  auto session = session::Session::open(options.input, diagnostics);
  if (!session) return tl::unexpected(session.error());
  InjectPass pass(options, *session);
  // -b follows perf: the records in time order; otherwise they go through as they come.
  session->set_ordered(options.build_ids);
  session->set_locate_callchains(false);
  if (auto processed = session->process(pass); !processed) return tl::unexpected(processed.error());
  return pass.finish();
}

}  // namespace sonde::pipeline
