// libFuzzer target for the perf.data reader (src/perfdata/).
//
// One input is the bytes of a perf.data file, in file mode or pipe mode. Each run:
//  1. file mode: the bytes go into a memfd, opened by path (/proc/self/fd/N) with
//     PerfDataReader::open, as `sonde report -i FILE` does: header, attrs, features, then every
//     record, each SAMPLE decoded against its attr (and against the first few attrs of the file,
//     whatever the record's id says), each kernel record by its decoder, each sample_id trailer;
//     every decoded view is read to its last byte so that ASan sees a view that overruns;
//     the features are decoded again section by section and encoded back; the records are read a
//     second time and must come out the same (a file can be iterated again);
//  2. pipe mode: the same bytes written into a real pipe and read with open_stream, as
//     `sonde report -i -` does; for a pipe-mode image the records must equal what step 1 read;
//  3. the tokenizer: the record bytes (data section, or everything after a pipe header) fed to a
//     RecordStream in chunks of pseudo-random sizes (1 byte to a few KiB, derived from the
//     input) must give the same records, offsets, errors and truncation as one whole chunk.
// A disagreement in 1-3 aborts with a message: it is a reader bug even without a crash.
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "format/features.hpp"
#include "format/perf_format.hpp"
#include "format/sample.hpp"
#include "perfdata/attrs.hpp"
#include "perfdata/kernel_records.hpp"
#include "perfdata/reader.hpp"
#include "perfdata/record_stream.hpp"

using namespace sonde::perfdata;
using sonde::Bytes;

namespace {

// Reading every byte of a view into this keeps the reads from being optimized away.
volatile uint64_t g_sink;

void touch(Bytes bytes) {
  uint64_t sum = 0;
  for (uint8_t b : bytes) sum += b;
  g_sink = g_sink + sum;
}
void touch(std::string_view text) {
  touch(Bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}
void touch(uint64_t v) { g_sink = g_sink + v; }

[[noreturn]] void invariant_failed(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "perfdata fuzzer: invariant broken: %s %s\n", what, detail.c_str());
  std::abort();
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}
uint64_t hash_bytes(Bytes bytes, uint64_t h = 0xcbf29ce484222325ULL) {
  for (uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ULL;
  return h;
}

// splitmix64: chunk sizes that depend only on the input, so a crash reproduces.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

// A record's identity for the comparisons: type, misc, size, offset and content.
uint64_t record_hash(const RecordView& r) {
  uint64_t h = mix(r.type(), r.misc());
  h = mix(h, r.header.size);
  h = mix(h, r.offset);
  return mix(h, hash_bytes(r.bytes));
}

void touch_regs(const Regs& regs) {
  touch(regs.abi);
  touch(regs.values.bytes);
  for (int reg = 0; reg < 64; ++reg)
    if (auto v = regs.get(reg)) touch(*v);
}

void touch_sample(const Sample& s) {
  touch(s.ip + s.pid + s.tid + s.time + s.addr + s.id + s.stream_id + s.cpu + s.period);
  touch(s.read.time_enabled + s.read.time_running);
  for (size_t i = 0; i < s.read.nr; ++i) {
    auto v = s.read.value(i);
    touch(v.value + v.id + v.lost);
  }
  for (size_t i = 0; i < s.callchain.size(); ++i) touch(s.callchain[i]);
  touch(s.raw);
  touch(s.branch_nr);
  touch_regs(s.regs_user);
  touch_regs(s.regs_intr);
  touch(s.stack_user);
  touch(s.stack_user_dyn_size + s.weight + s.data_src + s.transaction + s.phys_addr + s.cgroup);
  touch(s.data_page_size + s.code_page_size);
  touch(s.aux);
}

template <typename T>
void decode_and_touch(const RecordView& r) {
  auto decoded = T::decode(r);
  if (!decoded) {
    touch(decoded.error().message);
    return;
  }
  if constexpr (requires { decoded->filename; }) touch(decoded->filename);
  if constexpr (requires { decoded->comm; }) touch(decoded->comm);
}

void decode_kernel_record(const RecordView& r) {
  switch (r.type()) {
    case PERF_RECORD_MMAP:
      decode_and_touch<MmapRecord>(r);
      break;
    case PERF_RECORD_MMAP2: {
      auto m = Mmap2Record::decode(r);
      if (m) {
        touch(m->filename);
        touch(Bytes(m->build_id, std::min<size_t>(m->build_id_size, sizeof m->build_id)));
      }
      break;
    }
    case PERF_RECORD_COMM:
      decode_and_touch<CommRecord>(r);
      break;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      decode_and_touch<ForkExitRecord>(r);
      break;
    case PERF_RECORD_LOST:
      decode_and_touch<LostRecord>(r);
      break;
    case PERF_RECORD_LOST_SAMPLES:
      decode_and_touch<LostSamplesRecord>(r);
      break;
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE:
      decode_and_touch<ThrottleRecord>(r);
      break;
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
      decode_and_touch<SwitchRecord>(r);
      break;
    default:
      break;
  }
}

// Everything a consumer does with one record.
void consume_record(const PerfDataReader& reader, const RecordView& r) {
  touch(r.bytes);
  touch(r.payload());
  const AttrTable& attrs = reader.attrs();
  const EventAttr* event = attrs.for_record(r);
  if (r.type() == PERF_RECORD_SAMPLE) {
    if (event) {
      if (auto s = decode_sample(r, event->attr)) touch_sample(*s);
    }
    // The same bytes read with the layouts of the other events: corrupt ids point anywhere.
    for (size_t i = 0; i < attrs.events().size() && i < 4; ++i) {
      if (auto s = decode_sample(r, attrs.events()[i].attr)) touch_sample(*s);
    }
    return;
  }
  if (r.type() < PERF_RECORD_USER_TYPE_START) {
    decode_kernel_record(r);
    if (event) {
      if (auto id = decode_sample_id(r, event->attr)) touch(id->pid + id->tid + id->time + id->id + id->cpu);
      touch(sample_id_size(event->attr));
    }
  }
}

struct Pass {
  uint64_t records = 0;
  uint64_t hash = 0;
  bool error = false;
  std::string error_text;  // RecordStream's error
};

Pass read_all(PerfDataReader& reader, bool consume) {
  Pass pass;
  for (const RecordView& r : reader.records()) {
    ++pass.records;
    pass.hash = mix(pass.hash, record_hash(r));
    if (consume) consume_record(reader, r);
  }
  pass.error = reader.error().has_value();
  if (pass.error) touch(reader.error()->message);
  return pass;
}

void touch_features(const FeatureSet& f) {
  for (const auto* s : {&f.hostname, &f.os_release, &f.version, &f.arch, &f.cpu_desc, &f.cpuid})
    if (*s) touch(**s);
  if (f.cmdline)
    for (const auto& arg : *f.cmdline) touch(arg);
  if (f.event_desc)
    for (const auto& e : *f.event_desc) {
      touch(e.name);
      for (uint64_t id : e.ids) touch(id);
    }
  if (f.cpu_topology) {
    for (const auto& s : f.cpu_topology->package_cpus) touch(s);
    for (const auto& s : f.cpu_topology->core_cpus) touch(s);
    for (const auto& s : f.cpu_topology->die_cpus) touch(s);
    for (const auto& c : f.cpu_topology->cpus) touch(c.core_id + c.socket_id + c.die_id);
  }
  if (f.build_ids)
    for (const auto& b : *f.build_ids) {
      touch(b.filename);
      touch(Bytes(b.build_id.data(), b.build_id.size()));
    }
  if (f.pmu_mappings)
    for (const auto& [type, name] : *f.pmu_mappings) touch(type + name.size());
}

void exercise_reader_metadata(const PerfDataReader& reader) {
  touch(reader.header().data.offset + reader.header().data.size);
  for (const auto& e : reader.attrs().events()) {
    touch(e.name);
    for (uint64_t id : e.ids) touch(reader.attrs().by_id(id) != nullptr);
  }
  touch(reader.attrs().consistency_warning());
  touch_features(reader.features());
  touch(reader.tracing_data());
  // Each section decoded again on its own, as a tool printing one feature would.
  FeatureSet again;
  for (int feature = HEADER_RESERVED; feature <= HEADER_LAST_FEATURE; ++feature) {
    touch(reader.has_feature(feature));
    Bytes section = reader.feature_section(feature);
    touch(section);
    if (section.empty() || feature == HEADER_TRACING_DATA) continue;
    if (auto r = decode_feature(feature, section, again); !r) touch(r.error().message);
    if (feature == HEADER_BUILD_ID) {
      if (auto ids = decode_build_ids(section)) touch(ids->size());
    }
  }
  touch_features(again);
  // What was read must encode back (sonde inject-style rewriting) without tripping anything.
  FeatureSet copy = reader.features();
  copy.tracing_data.reset();
  for (const auto& [id, bytes] : encode_features(copy, false)) touch(id + bytes.size());
}

// A memfd reused across runs: the reader maps it by path, like any file.
int file_fd() {
  static int fd = memfd_create("perfdata-fuzz", MFD_CLOEXEC);
  return fd;
}

bool write_all(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Step 3: the record bytes through RecordStream in one chunk and in random chunks.
void check_chunked_tokenizer(Bytes records, uint64_t base_offset, uint64_t seed) {
  auto run = [&](RecordStream& stream) {
    Pass pass;
    RecordView r;
    while (true) {
      auto status = stream.next(r);
      if (!status) {
        pass.error = true;
        pass.error_text = status.error().message;
        break;
      }
      if (*status != RecordStream::Status::Record) break;
      touch(r.bytes);
      ++pass.records;
      pass.hash = mix(pass.hash, record_hash(r));
    }
    return pass;
  };
  // One stream at a time: each may hold a decompression buffer of up to 1 GiB.
  Pass a;
  std::optional<std::string> whole_truncation;
  {
    RecordStream whole(records, base_offset);
    a = run(whole);
    whole_truncation = whole.truncation();
  }

  Rng rng{seed};
  size_t pos = 0;
  std::vector<uint8_t> chunk;  // a fresh copy per refill, as a pipe's buffer would be reused
  RecordStream chunked(
      [&]() -> sonde::Result<Bytes> {
        if (pos >= records.size()) return Bytes{};
        uint64_t pick = rng.next();
        size_t size = (pick & 3) == 0 ? 1 + (pick >> 8) % 8192 : 1 + (pick >> 8) % 24;
        size = std::min(size, records.size() - pos);
        chunk.assign(records.begin() + static_cast<std::ptrdiff_t>(pos),
                     records.begin() + static_cast<std::ptrdiff_t>(pos + size));
        pos += size;
        return Bytes(chunk.data(), chunk.size());
      },
      base_offset);
  Pass b = run(chunked);

  if (a.records != b.records || a.hash != b.hash)
    invariant_failed("chunked records differ from whole-buffer records",
                     std::to_string(a.records) + " vs " + std::to_string(b.records));
  if (a.error != b.error || a.error_text != b.error_text)
    invariant_failed("chunked error differs", "'" + a.error_text + "' vs '" + b.error_text + "'");
  if (!a.error && whole_truncation != chunked.truncation())
    invariant_failed("chunked truncation differs",
                     whole_truncation.value_or("none") + " vs " + chunked.truncation().value_or("none"));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes input(data, size);
  const uint64_t seed = hash_bytes(input);

  // 1. File mode, through a path.
  int fd = file_fd();
  if (fd < 0 || ::ftruncate(fd, 0) != 0 || ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) {
    std::perror("memfd");
    std::abort();
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  bool file_is_pipe_image = false;
  Pass file_pass;
  Bytes record_bytes;
  uint64_t record_base = 0;
  {
    auto reader = PerfDataReader::open(path);
    if (!reader) {
      touch(reader.error().message);
    } else {
      file_is_pipe_image = reader->is_pipe();
      exercise_reader_metadata(*reader);
      file_pass = read_all(*reader, true);
      // Metadata again: pipe-mode images fill attrs and features in while records pass.
      exercise_reader_metadata(*reader);
      if (!reader->is_pipe()) {
        Pass second = read_all(*reader, false);
        if (second.records != file_pass.records || second.hash != file_pass.hash ||
            second.error != file_pass.error)
          invariant_failed("a second pass over the file reads other records");
        const auto& d = reader->header().data;
        if (d.offset <= size) {
          record_base = d.offset;
          record_bytes = input.subspan(d.offset, std::min<uint64_t>(d.size, size - d.offset));
        }
      } else {
        record_base = sizeof(PipeHeader);
        record_bytes = input.subspan(sizeof(PipeHeader));
      }
    }
  }

  // 2. Pipe mode, through a real pipe holding the whole input.
  int p[2];
  if (::pipe2(p, O_CLOEXEC) == 0) {
    ::fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
    long capacity = ::fcntl(p[1], F_GETPIPE_SZ);
    if (capacity >= 0 && size <= static_cast<size_t>(capacity) && write_all(p[1], data, size)) {
      ::close(p[1]);
      p[1] = -1;
      auto reader = PerfDataReader::open_stream(p[0]);
      if (!reader) {
        touch(reader.error().message);
      } else {
        Pass pipe_pass = read_all(*reader, true);
        exercise_reader_metadata(*reader);
        if (file_is_pipe_image && (pipe_pass.records != file_pass.records ||
                                   pipe_pass.hash != file_pass.hash || pipe_pass.error != file_pass.error))
          invariant_failed("the same pipe-mode image reads differently from a pipe and from a file");
        // A pipe is read once; a second records() says so instead of hanging or crashing.
        Pass again = read_all(*reader, false);
        if (again.records != 0 || !again.error) invariant_failed("a pipe was read twice");
      }
    }
    if (p[1] >= 0) ::close(p[1]);
    ::close(p[0]);
  }

  // 3. The tokenizer under arbitrary read boundaries.
  if (!record_bytes.empty()) check_chunked_tokenizer(record_bytes, record_base, seed);
  return 0;
}
