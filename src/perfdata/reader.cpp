#include "perfdata/reader.hpp"

#include <unistd.h>

#include <cerrno>

#include "base/file.hpp"
#include "base/mapped_file.hpp"
#include "perfdata/file_layout.hpp"
#include "perfdata/record_stream.hpp"

namespace sonde::perfdata {

namespace {

constexpr size_t kPipeReadSize = 256 * 1024;

// Reads exactly `size` bytes unless the stream ends first; returns how many were read.
Result<size_t> read_fully(int fd, void* buffer, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, static_cast<char*>(buffer) + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failf("reading the input stream: {}", errno_text(errno));
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

// Where the warnings of a caller that does not show them go.
Diagnostics& dropped() {
  static Diagnostics none([](const Diagnostics::Message&) {});
  return none;
}

}  // namespace

struct PerfDataReader::State {
  bool pipe = false;
  std::optional<MappedFile> file;  // file mode (and a pipe-mode stream saved to a file)
  int fd = -1;                     // pipe mode from a descriptor
  std::vector<uint8_t> read_buffer;
  bool pipe_consumed = false;
  bool data_cut = false;  // the file ends before its data section does

  FileHeader header;
  AttrTable attrs;
  FeatureSet features;
  std::map<int, Bytes> feature_sections;          // file mode: views into the mapping
  std::map<int, std::string> pipe_feature_bytes;  // pipe mode: copies out of the stream
  std::string pipe_tracing_data;
  Diagnostics* read_diagnostics = &dropped();  // the current records() pass's
  std::optional<Error> error;

  Bytes data;  // the data section (file mode) or what follows the pipe header (pipe in a file)
  uint64_t data_offset = 0;
  std::optional<RecordStream> stream;
  // COMPRESSED and COMPRESSED2 records the last pass opened (kept when its stream goes).
  uint64_t compressed_read = 0, compressed2_read = 0;
  bool absorb_while_reading = true;
};

PerfDataReader::PerfDataReader(std::unique_ptr<State> state) : state_(std::move(state)) {}
PerfDataReader::PerfDataReader(PerfDataReader&&) noexcept = default;
PerfDataReader& PerfDataReader::operator=(PerfDataReader&&) noexcept = default;
PerfDataReader::~PerfDataReader() = default;

Result<PerfDataReader> PerfDataReader::open(const std::string& path) { return open(path, dropped()); }

Result<PerfDataReader> PerfDataReader::open(const std::string& path, Diagnostics& diagnostics) {
  if (path == "-") return open_stream(STDIN_FILENO);
  // perf's directory recordings (record --kcore): the file is DIR/data.
  if (is_directory(path)) {
    if (!path_exists(path + "/data"))
      return failf(
          "{} is a directory, not a perf.data file (a directory recording, record --kcore's, holds {}/data)",
          path, path);
    return open(path + "/data", diagnostics);
  }
  auto mapped = MappedFile::open(path);
  if (!mapped) return tl::unexpected(mapped.error());
  auto state = std::make_unique<State>();
  Bytes file = mapped->bytes();
  auto with_path = [&](const Error& e) { return tl::unexpected(e.with_context(path)); };
  auto kind = identify(file);
  if (!kind) return with_path(kind.error());
  if (*kind == FileKind::Pipe) {
    // A pipe-mode stream saved to a file: records from byte 16 on, headers arrive as records.
    state->pipe = true;
    state->header.size = sizeof(PipeHeader);
    state->data = file.subspan(sizeof(PipeHeader));
    state->data_offset = sizeof(PipeHeader);
    state->file = std::move(*mapped);
    return PerfDataReader(std::move(state));
  }
  auto header = read_file_header(file, diagnostics, state->data_cut);
  if (!header) return with_path(header.error());
  state->header = *header;
  if (auto r = read_attr_section(file, *header, state->attrs); !r) return with_path(r.error());
  state->feature_sections = read_feature_table(file, *header, diagnostics);
  for (const auto& [feature, bytes] : state->feature_sections) {
    if (feature == HEADER_TRACING_DATA) continue;  // handed out as a view, not copied
    if (auto r = decode_feature(feature, bytes, state->features); !r) diagnostics.warning(r.error().message);
  }
  if (state->features.event_desc) state->attrs.apply_event_desc(*state->features.event_desc);
  if (auto w = state->attrs.consistency_warning(); !w.empty()) diagnostics.warning(w);
  state->data = file.subspan(header->data.offset, header->data.size);
  state->data_offset = header->data.offset;
  state->file = std::move(*mapped);
  return PerfDataReader(std::move(state));
}

std::string recording_kallsyms(const std::string& input) {
  std::string path = input + "/kcore_dir/kallsyms";
  return is_directory(input) && path_exists(path) ? path : "";
}

Result<PerfDataReader> PerfDataReader::open_stream(int fd) {
  auto state = std::make_unique<State>();
  PipeHeader pipe_header;
  auto got = read_fully(fd, &pipe_header, sizeof pipe_header);
  if (!got) return tl::unexpected(got.error());
  auto kind = identify(Bytes(reinterpret_cast<const uint8_t*>(&pipe_header), *got));
  if (!kind) return tl::unexpected(kind.error().with_context("the input stream"));
  if (*kind != FileKind::Pipe)
    return fail(
        "the input stream: a perf.data file in file mode cannot be read from a pipe; pass it with -i FILE");
  state->pipe = true;
  state->fd = fd;
  state->header.size = sizeof(PipeHeader);
  state->data_offset = sizeof(PipeHeader);
  state->read_buffer.resize(kPipeReadSize);
  return PerfDataReader(std::move(state));
}

bool PerfDataReader::is_pipe() const { return state_->pipe; }
const FileHeader& PerfDataReader::header() const { return state_->header; }
const AttrTable& PerfDataReader::attrs() const { return state_->attrs; }
const FeatureSet& PerfDataReader::features() const { return state_->features; }
const std::optional<Error>& PerfDataReader::error() const { return state_->error; }

bool PerfDataReader::has_feature(int feature) const {
  return state_->feature_sections.count(feature) || state_->pipe_feature_bytes.count(feature) ||
         (feature == HEADER_TRACING_DATA && !state_->pipe_tracing_data.empty());
}

Bytes PerfDataReader::feature_section(int feature) const {
  if (auto it = state_->feature_sections.find(feature); it != state_->feature_sections.end())
    return it->second;
  if (auto it = state_->pipe_feature_bytes.find(feature); it != state_->pipe_feature_bytes.end())
    return {reinterpret_cast<const uint8_t*>(it->second.data()), it->second.size()};
  return {};
}

Bytes PerfDataReader::tracing_data() const {
  if (!state_->pipe_tracing_data.empty())
    return {reinterpret_cast<const uint8_t*>(state_->pipe_tracing_data.data()),
            state_->pipe_tracing_data.size()};
  return feature_section(HEADER_TRACING_DATA);
}

PerfDataReader::RecordRange PerfDataReader::records() { return records(dropped()); }

PerfDataReader::RecordRange PerfDataReader::records(Diagnostics& diagnostics) {
  State& s = *state_;
  s.error.reset();
  s.read_diagnostics = &diagnostics;
  if (s.fd >= 0) {
    if (s.pipe_consumed) {
      s.error = Error{"the input stream can be read only once"};
      return {this};
    }
    s.pipe_consumed = true;
    State* raw = &s;
    s.stream.emplace(
        [raw]() -> Result<Bytes> {
          auto n = read_fully(raw->fd, raw->read_buffer.data(), raw->read_buffer.size());
          if (!n) return tl::unexpected(n.error());
          return Bytes(raw->read_buffer.data(), *n);
        },
        s.data_offset);
  } else {
    s.stream.emplace(s.data, s.data_offset);
  }
  return {this};
}

PerfDataReader::RecordIterator& PerfDataReader::RecordIterator::operator++() {
  if (reader_ && !reader_->advance(current_)) reader_ = nullptr;
  return *this;
}

uint64_t PerfDataReader::compressed_records(uint32_t type) const {
  const State& s = *state_;
  if (s.stream) return s.stream->compressed_records(type);
  return type == PERF_RECORD_COMPRESSED2 ? s.compressed2_read : s.compressed_read;
}

bool PerfDataReader::advance(RecordView& out) {
  State& s = *state_;
  if (!s.stream || s.error) return false;
  auto status = s.stream->next(out);
  if (status && *status == RecordStream::Status::Record) {
    if (out.type() >= PERF_RECORD_USER_TYPE_START && s.absorb_while_reading) absorb_user_record(out);
    return true;
  }
  if (!status && s.data_cut && !s.pipe) {
    // A file whose writer did not finish ends where its last record was written, and what
    // follows (an unwritten buffer, a feature table) is no record: the records before it stand.
    s.read_diagnostics->warning(status.error().message + "; the records before it were read");
  } else if (!status) {
    s.error = std::move(status.error());
  } else if (s.stream->truncation()) {
    // A cut file (or a pipe that closed early) loses its last record; a whole data section whose
    // last record claims more bytes than the section holds is corrupt.
    if (s.pipe || s.data_cut)
      s.read_diagnostics->warning(*s.stream->truncation() + "; the records before it were read");
    else
      s.error = Error{fmt::format("the record at offset {:#x} runs past the end of the data section at {:#x}",
                                  s.stream->offset(), s.data_offset + s.data.size())};
  }
  s.compressed_read = s.stream->compressed_records(PERF_RECORD_COMPRESSED);
  s.compressed2_read = s.stream->compressed_records(PERF_RECORD_COMPRESSED2);
  s.stream.reset();
  return false;
}

// Pipe mode's header, arriving as records (perf inject can put them in files too).
void PerfDataReader::absorb_user_record(const RecordView& record) {
  State& s = *state_;
  auto warn = [&](const std::string& what) {
    s.read_diagnostics->warningf("{} record at offset {:#x}: {}", record_type_name(record.type()),
                                 record.offset, what);
  };
  Bytes payload = record.payload();
  switch (record.type()) {
    case PERF_RECORD_HEADER_ATTR: {
      if (payload.size() < PERF_ATTR_SIZE_VER0) return warn("too short for an attr");
      uint32_t attr_size = load<uint32_t>(payload.data() + offsetof(perf_event_attr, size));
      if (attr_size == 0) attr_size = PERF_ATTR_SIZE_VER0;
      if (attr_size > payload.size() || (payload.size() - attr_size) % sizeof(uint64_t) != 0)
        return warn(fmt::format("attr size {} does not fit the record", attr_size));
      std::vector<uint64_t> ids((payload.size() - attr_size) / sizeof(uint64_t));
      if (!ids.empty()) std::memcpy(ids.data(), payload.data() + attr_size, ids.size() * sizeof(uint64_t));
      if (auto r = s.attrs.add(payload.first(attr_size), ids); !r) warn(r.error().message);
      return;
    }
    case PERF_RECORD_HEADER_FEATURE: {
      if (payload.size() < sizeof(uint64_t)) return warn("too short");
      uint64_t feature = load<uint64_t>(payload.data());
      if (feature == HEADER_LAST_FEATURE) {
        if (s.features.event_desc) s.attrs.apply_event_desc(*s.features.event_desc);
        return;
      }
      if (feature == HEADER_RESERVED || feature > HEADER_LAST_FEATURE)
        return warn(fmt::format("unknown feature {}", feature));
      Bytes bytes = payload.subspan(sizeof(uint64_t));
      auto& stored = s.pipe_feature_bytes[static_cast<int>(feature)];
      stored.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      Bytes owned(reinterpret_cast<const uint8_t*>(stored.data()), stored.size());
      if (auto r = decode_feature(static_cast<int>(feature), owned, s.features); !r) warn(r.error().message);
      return;
    }
    case PERF_RECORD_HEADER_TRACING_DATA: {
      Bytes blob = record.bytes.subspan(record.header.size);
      s.pipe_tracing_data.assign(reinterpret_cast<const char*>(blob.data()), blob.size());
      return;
    }
    case PERF_RECORD_HEADER_BUILD_ID: {
      auto entries = decode_build_ids(record.bytes.first(record.header.size));
      if (!entries) return warn(entries.error().message);
      if (!s.features.build_ids) s.features.build_ids.emplace();
      for (auto& e : *entries) s.features.build_ids->push_back(std::move(e));
      return;
    }
    default:
      return;
  }
}

void PerfDataReader::set_absorb_while_reading(bool absorb) { state_->absorb_while_reading = absorb; }

void PerfDataReader::absorb(const RecordView& record) {
  if (!state_->absorb_while_reading && record.type() >= PERF_RECORD_USER_TYPE_START)
    absorb_user_record(record);
}

bool PerfDataReader::changes_header(uint32_t type) {
  return type == PERF_RECORD_HEADER_ATTR || type == PERF_RECORD_HEADER_FEATURE ||
         type == PERF_RECORD_HEADER_TRACING_DATA || type == PERF_RECORD_HEADER_BUILD_ID;
}

bool PerfDataReader::maps(const RecordView& record) const {
  if (!state_->file) return false;
  Bytes all = state_->file->bytes();
  return !record.bytes.empty() && record.bytes.data() >= all.data() &&
         record.bytes.data() + record.bytes.size() <= all.data() + all.size();
}

void PerfDataReader::release_before(uint64_t offset) {
  if (state_->file) state_->file->release_before(static_cast<size_t>(offset));
}

}  // namespace sonde::perfdata
