#include "pipeline/inject_run.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <ctime>
#include <set>

#include "base/bytes.hpp"
#include "format/build_ids.hpp"
#include "format/jit_elf.hpp"
#include "format/jitdump.hpp"
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
    if (type == perfdata::PERF_RECORD_FINISHED_ROUND && (options_.build_ids || options_.jit)) return {};
    if (!start()) return tl::unexpected(*failure_);
    if (options_.jit && (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2)) {
      auto kept = jit_mapping(record);
      if (!kept) return tl::unexpected(kept.error());
      if (!*kept) return {};
    }
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

  // -j: a jitdump's mapping is replaced by its functions' MMAP2 records, and a jitted process's
  // later anonymous maps are dropped (their code is named by the ELF files). Whether to copy it.
  Result<bool> jit_mapping(const perfdata::RecordView& record) {
    uint32_t pid = 0;
    std::string filename;
    if (record.type() == PERF_RECORD_MMAP) {
      auto mmap = perfdata::MmapRecord::decode(record);
      if (!mmap) return true;
      pid = mmap->pid, filename = std::string(mmap->filename);
    } else {
      auto mmap = perfdata::Mmap2Record::decode(record);
      if (!mmap) return true;
      pid = mmap->pid, filename = std::string(mmap->filename);
    }
    if (!format::is_jitdump_name(filename, pid)) {
      bool anonymous =
          filename.starts_with("//anon") || filename.starts_with("[anon:") || filename.starts_with("/memfd:");
      return !(anonymous && jitted_pids_.count(pid));
    }
    auto dump = format::read_jitdump(filename);
    if (!dump) return tl::unexpected(dump.error());
    if (auto clock = check_jit_clock(*dump, filename); !clock) return tl::unexpected(clock.error());
    std::string directory = filename.substr(0, filename.rfind('/') + 1);
    for (const format::JitRecord& jitted : dump->records) {
      std::string elf = fmt::format("{}jitted-{}-{}.so", directory, jitted.pid, jitted.code_index);
      if (jitted.kind == format::JitRecord::Kind::load) {
        if (auto written = format::write_jit_elf(elf, jitted.name, jitted.code, jitted.code_addr); !written) {
          // perf warns and goes on with the next function.
          continue;
        }
        ++stats_.jitted_functions;
      }
      append_jit_mmap(jitted, elf);
      if (failure_) return tl::unexpected(*failure_);
    }
    jitted_pids_.insert(pid);
    return false;
  }

  // The dump's times must be the recording's: CLOCK_MONOTONIC on every event (record -k mono).
  Result<void> check_jit_clock(const format::JitDump& dump, const std::string& path) {
    if (dump.flags & format::kJitdumpArchTimestamp)
      return failf(
          "{} stamps its records with the CPU's counter (arch timestamps), which sonde does not convert yet",
          path);
    for (const auto& event : session_.reader().attrs().events())
      if (!event.attr.use_clockid || event.attr.clockid != CLOCK_MONOTONIC)
        return failf(
            "jitted code must be sampled with CLOCK_MONOTONIC, the jitdump's clock: record with 'sonde "
            "record "
            "-k mono' ({} was not)",
            options_.input);
    return {};
  }

  // perf's MMAP2 for a jitted function: the ELF file from its .text offset over the code, at the
  // load's (or move's) time, with a sample_id trailer laid out as the first event's.
  void append_jit_mmap(const format::JitRecord& jitted, const std::string& elf) {
    struct stat status {};
    bool known = ::stat(elf.c_str(), &status) == 0;
    ByteWriter body;
    body.put<uint32_t>(jitted.pid);
    body.put<uint32_t>(jitted.tid);
    body.put<uint64_t>(jitted.code_addr);
    body.put<uint64_t>(jitted.code_size);
    body.put<uint64_t>(format::kJitElfTextOffset);
    body.put<uint32_t>(known ? major(status.st_dev) : 0);
    body.put<uint32_t>(known ? minor(status.st_dev) : 0);
    body.put<uint64_t>(known ? status.st_ino : 0);
    body.put<uint64_t>(1);  // ino_generation
    body.put<uint32_t>(PROT_READ | PROT_EXEC);
    body.put<uint32_t>(MAP_SHARED);
    body.put_bytes(elf.data(), elf.size());
    body.put_zeros(ByteWriter::align_up(elf.size() + 1, 8) - elf.size());
    const auto& events = session_.reader().attrs().events();
    if (!events.empty() && events.front().attr.sample_id_all) {
      uint64_t type = events.front().attr.sample_type;
      if (type & PERF_SAMPLE_TID) {
        body.put<uint32_t>(jitted.pid);
        body.put<uint32_t>(jitted.tid);
      }
      if (type & PERF_SAMPLE_TIME) body.put<uint64_t>(jitted.timestamp);
      for (uint64_t bit : {PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER})
        if (type & bit) body.put<uint64_t>(0);
    }
    perf_event_header header{PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER,
                             static_cast<uint16_t>(sizeof(perf_event_header) + body.size())};
    if (auto written = writer_->append_record(header, body.str().data()); !written) {
      fail(written.error());
      return;
    }
    ++stats_.records;
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
  std::set<uint32_t> jitted_pids_;  // -j: processes whose jitdump was read
  InjectStats stats_;
};

}  // namespace

Result<InjectStats> run_inject(const InjectOptions& options, Diagnostics& diagnostics) {
  auto session = session::Session::open(options.input, diagnostics);
  if (!session) return tl::unexpected(session.error());
  InjectPass pass(options, *session);
  // -b and -j follow perf: the records in time order; otherwise they go through as they come.
  session->set_ordered(options.build_ids || options.jit);
  session->set_locate_callchains(false);
  if (auto processed = session->process(pass); !processed) return tl::unexpected(processed.error());
  return pass.finish();
}

}  // namespace sonde::pipeline
