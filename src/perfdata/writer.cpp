#include "perfdata/writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/file.hpp"
#include "base/output_stream.hpp"

namespace sonde::perfdata {

PerfDataWriter::PerfDataWriter(std::unique_ptr<OutputStream> out, std::string path, bool pipe)
    : out_(std::move(out)), path_(std::move(path)), pipe_(pipe) {}
PerfDataWriter::PerfDataWriter(PerfDataWriter&&) noexcept = default;
PerfDataWriter& PerfDataWriter::operator=(PerfDataWriter&&) noexcept = default;
PerfDataWriter::~PerfDataWriter() = default;

Result<PerfDataWriter> PerfDataWriter::create(const std::string& path) {
  // perf.data is private (0600, also when it existed); a device (-o /dev/null) keeps its mode.
  auto opened = open_output_file(path, 0600);
  if (!opened) return tl::unexpected(opened.error());
  struct stat st {};
  bool regular = ::fstat(opened->get(), &st) == 0 && S_ISREG(st.st_mode);
  int fd = opened->release();
  PerfDataWriter writer(std::make_unique<OutputStream>(fd, true, path), path, false);
  writer.regular_file_ = regular;
  // The placeholder: valid magic, no attrs, no data. finalize rewrites it.
  writer.header_ = FileHeader{};
  writer.header_.attr_size = sizeof(FileAttr);
  if (auto r = writer.out_->write(&writer.header_, sizeof writer.header_); !r)
    return tl::unexpected(r.error());
  return writer;
}

Result<PerfDataWriter> PerfDataWriter::to_pipe(int fd) {
  PerfDataWriter writer(std::make_unique<OutputStream>(fd, false, "the output pipe"), "-", true);
  PipeHeader header;
  if (auto r = writer.out_->write(&header, sizeof header); !r) return tl::unexpected(r.error());
  return writer;
}

Result<void> PerfDataWriter::write_attrs(std::span<const AttrWithIds> attrs) {
  if (attrs_written_) return fail("perf.data writer: attrs written twice");
  if (data_size_ > 0) return fail("perf.data writer: attrs must come before the data");
  attrs_written_ = true;
  return pipe_ ? write_pipe_attrs(attrs) : write_file_attrs(attrs);
}

Result<void> PerfDataWriter::write_file_attrs(std::span<const AttrWithIds> attrs) {
  // perf's layout: every attr's ids first, then the attrs section pointing back at them.
  std::vector<FileAttr> entries;
  for (const auto& a : attrs) {
    FileAttr entry{};
    entry.attr = a.attr;
    entry.attr.size = sizeof(perf_event_attr);  // perf sizes each attr by this field
    entry.ids = {out_->position(), a.ids.size() * sizeof(uint64_t)};
    if (auto r = out_->write(a.ids.data(), entry.ids.size); !r) return r;
    entries.push_back(entry);
  }
  header_.attrs = {out_->position(), entries.size() * sizeof(FileAttr)};
  if (auto r = out_->write(entries.data(), header_.attrs.size); !r) return r;
  header_.data = {out_->position(), 0};
  // On disk now, with a data size of 0: a recording killed before finalize() (SIGKILL, a crash)
  // is still read up to its last flushed record, by perf ("Was the 'perf record' command
  // properly terminated?") and by sonde.
  if (regular_file_) return out_->write_at(0, &header_, sizeof header_);
  return {};
}

Result<void> PerfDataWriter::write_pipe_attrs(std::span<const AttrWithIds> attrs) {
  for (const auto& a : attrs) {
    size_t size = sizeof(perf_event_header) + sizeof(perf_event_attr) + a.ids.size() * sizeof(uint64_t);
    if (size > kMaxRecordSize)
      return failf("perf.data writer: {} ids do not fit a HEADER_ATTR record", a.ids.size());
    perf_event_header header{PERF_RECORD_HEADER_ATTR, 0, static_cast<uint16_t>(size)};
    perf_event_attr attr = a.attr;
    attr.size = sizeof(perf_event_attr);
    if (auto r = out_->write(&header, sizeof header); !r) return r;
    if (auto r = out_->write(&attr, sizeof attr); !r) return r;
    if (auto r = out_->write(a.ids.data(), a.ids.size() * sizeof(uint64_t)); !r) return r;
  }
  return {};
}

Result<void> PerfDataWriter::write_pipe_features(const FeatureSet& features) {
  if (!pipe_) return fail("perf.data writer: features go in finalize() for a file");
  auto emit_feature = [&](uint64_t id, std::string_view bytes) -> Result<void> {
    size_t size = sizeof(FeatureRecordHeader) + bytes.size();
    if (size > kMaxRecordSize)
      return failf("perf.data writer: feature {} is too large for a pipe record",
                   feature_name(static_cast<int>(id)));
    FeatureRecordHeader header{{PERF_RECORD_HEADER_FEATURE, 0, static_cast<uint16_t>(size)}, id};
    if (auto r = out_->write(&header, sizeof header); !r) return r;
    return out_->write(bytes.data(), bytes.size());
  };
  for (const auto& [id, bytes] : encode_features(features, true))
    if (auto r = emit_feature(static_cast<uint64_t>(id), bytes); !r) return r;
  // perf report sets up its sample types when it sees this end mark.
  if (auto r = emit_feature(HEADER_LAST_FEATURE, {}); !r) return r;

  if (features.tracing_data) {
    // The blob follows the record, outside header.size, padded to 8 bytes.
    const std::string& blob = *features.tracing_data;
    size_t padded = ByteWriter::align_up(blob.size(), 8);
    TracingDataRecord record{{PERF_RECORD_HEADER_TRACING_DATA, 0, sizeof(TracingDataRecord)},
                             static_cast<uint32_t>(padded)};
    if (auto r = out_->write(&record, sizeof record); !r) return r;
    if (auto r = out_->write(blob.data(), blob.size()); !r) return r;
    static const char zeros[8] = {};
    if (auto r = out_->write(zeros, padded - blob.size()); !r) return r;
  }
  if (features.build_ids) {
    ByteWriter w;
    for (const auto& entry : *features.build_ids) encode_build_id(entry, PERF_RECORD_HEADER_BUILD_ID, w);
    if (auto r = out_->write(w.str().data(), w.size()); !r) return r;
  }
  return {};
}

Result<void> PerfDataWriter::append(const void* data, size_t size) {
  if (finalized_) return fail("perf.data writer: append after finalize");
  if (!attrs_written_) return fail("perf.data writer: append before write_attrs");
  data_size_ += size;
  return out_->write(data, size);
}

Result<void> PerfDataWriter::append_record(const perf_event_header& header, const void* payload) {
  if (header.size < sizeof header)
    return failf("perf.data writer: record size {} is below the header's", header.size);
  if (auto r = append(&header, sizeof header); !r) return r;
  return append(payload, header.size - sizeof header);
}

Result<void> PerfDataWriter::flush() { return out_->flush(); }

Result<void> PerfDataWriter::finalize(const FeatureSet& features) {
  if (finalized_) return fail("perf.data writer: finalized twice");
  finalized_ = true;
  if (pipe_) return out_->flush();
  if (!attrs_written_) {
    // Still a valid (empty) file: the data section starts right after the header.
    header_.attrs = {sizeof(FileHeader), 0};
    header_.data = {out_->position(), 0};
  }
  header_.data.size = data_size_;

  // perf finds the feature table right after the data: data.offset + data.size.
  FeatureSections sections = encode_features(features, false);
  std::vector<FileSection> table;
  uint64_t offset = out_->position() + sections.size() * sizeof(FileSection);
  for (const auto& [id, bytes] : sections) {
    header_.set_feature(id);
    table.push_back({offset, bytes.size()});
    offset += bytes.size();
  }
  if (auto r = out_->write(table.data(), table.size() * sizeof(FileSection)); !r) return r;
  for (const auto& [id, bytes] : sections)
    if (auto r = out_->write(bytes.data(), bytes.size()); !r) return r;
  if (auto r = out_->write_at(0, &header_, sizeof header_); !r) return r;
  return out_->close();
}

}  // namespace sonde::perfdata
