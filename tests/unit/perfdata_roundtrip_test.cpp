// perf.data written by PerfDataWriter and read back by PerfDataReader, field by field, in file
// and pipe mode; the record tokenizer fed a byte at a time.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "format/sample.hpp"
#include "format/synthesize.hpp"
#include "perfdata/kernel_records.hpp"
#include "perfdata/reader.hpp"
#include "perfdata/record_tokenizer.hpp"
#include "perfdata/writer.hpp"
#include "temp_dir.hpp"

using namespace sonde;
using namespace sonde::perfdata;

namespace {

std::string temp_path(const std::string& name) { return test::unit_temp_dir() + "/" + name; }

perf_event_attr cpu_clock_attr() {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.size = sizeof attr;
  attr.sample_freq = 4000;
  attr.freq = 1;
  attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  attr.sample_id_all = 1;
  attr.mmap = attr.comm = attr.task = attr.mmap2 = attr.comm_exec = 1;
  return attr;
}

perf_event_attr tracepoint_attr() {
  perf_event_attr attr = cpu_clock_attr();
  attr.type = PERF_TYPE_TRACEPOINT;
  attr.config = 316;
  attr.freq = 0;
  attr.sample_period = 1;
  attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
  return attr;
}

constexpr uint32_t kPid = 4242;
const uint64_t kChain[] = {PERF_CONTEXT_USER, 0x401136, 0x401150, 0x401180, 0x7f0000021c8a};

// The records of a small recording: COMM, MMAP2, a FORK, samples of two events, a round.
std::string synthetic_data(const perf_event_attr& clock, const perf_event_attr& tp) {
  std::string data;
  SyntheticId id{kPid, kPid, 1000, 11, 0, 0};
  data += make_comm(clock, kPid, kPid, "demo", true, id);
  SyntheticMmap2 mmap{kPid,        kPid,           0x400000, 0x2000, 0, 8, 1, 1234, 0, PROT_READ | PROT_EXEC,
                      MAP_PRIVATE, "/usr/bin/demo"};
  data += make_mmap2(clock, mmap, id);
  data += make_fork_exit(clock, true, kPid, kPid, kPid + 1, kPid, 1100, id);
  for (int i = 0; i < 5; ++i) {
    SyntheticSample s;
    s.ip = 0x401136 + static_cast<uint64_t>(i);
    s.pid = kPid;
    s.tid = i % 2 ? kPid + 1 : kPid;
    s.time = 2000 + static_cast<uint64_t>(i) * 250000;
    s.id = 11;
    s.cpu = static_cast<uint32_t>(i % 2);
    s.period = 250000;
    s.callchain = kChain;
    data += *make_sample(clock, s);
  }
  SyntheticSample raw;
  raw.pid = raw.tid = kPid;
  raw.time = 3000000;
  raw.id = 21;
  raw.period = 1;
  raw.raw = std::string_view("\x01\x02\x03\x04\x05", 5);
  raw.misc = PERF_RECORD_MISC_KERNEL;
  data += *make_sample(tp, raw);
  data += make_finished_round();
  return data;
}

FeatureSet full_features(const perf_event_attr& clock, const perf_event_attr& tp) {
  FeatureSet f;
  f.hostname = "testhost";
  f.os_release = "6.1.0-test";
  f.version = "6.1.sonde";
  f.arch = "x86_64";
  f.nr_cpus = NrCpus{4, 2};
  f.cpu_desc = "Test CPU @ 1.00GHz";
  f.cpuid = "GenuineIntel,6,85,4";
  f.total_mem_kb = 16384;
  f.cmdline = std::vector<std::string>{"/usr/bin/sonde", "record", "-g", "--", "demo"};
  f.event_desc = std::vector<EventDesc>{{clock, "cpu-clock", {11, 12}}, {tp, "sched:sched_switch", {21}}};
  CpuTopology topology;
  topology.package_cpus = {"0-3"};
  topology.core_cpus = {"0-1", "2-3"};
  topology.cpus = {{0, 0, 0}, {0, 0, 0}, {1, 0, 0}, {1, 0, 0}};
  topology.die_cpus = {"0-3"};
  f.cpu_topology = topology;
  f.build_ids = std::vector<BuildIdEntry>{
      {-1,
       PERF_RECORD_MISC_USER,
       {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
       "/usr/bin/demo"},
      {-1, PERF_RECORD_MISC_KERNEL, {1, 2, 3}, "[kernel.kallsyms]"}};
  f.tracing_data = std::string("\x17\x08\x44tracing0.6 fake blob", 24);
  f.sample_time = SampleTime{2000, 3000000};
  f.clockid_res_ns = 1;
  return f;
}

std::vector<AttrWithIds> two_attrs(const perf_event_attr& clock, const perf_event_attr& tp) {
  return {{clock, {11, 12}}, {tp, {21}}};
}

void expect_features(const FeatureSet& got, const FeatureSet& want) {
  EXPECT_EQ(got.hostname, want.hostname);
  EXPECT_EQ(got.os_release, want.os_release);
  EXPECT_EQ(got.version, want.version);
  EXPECT_EQ(got.arch, want.arch);
  ASSERT_TRUE(got.nr_cpus);
  EXPECT_EQ(got.nr_cpus->available, 4u);
  EXPECT_EQ(got.nr_cpus->online, 2u);
  EXPECT_EQ(got.cpu_desc, want.cpu_desc);
  EXPECT_EQ(got.cpuid, want.cpuid);
  EXPECT_EQ(got.total_mem_kb, want.total_mem_kb);
  EXPECT_EQ(got.cmdline, want.cmdline);
  ASSERT_TRUE(got.event_desc);
  ASSERT_EQ(got.event_desc->size(), 2u);
  EXPECT_EQ((*got.event_desc)[0].name, "cpu-clock");
  EXPECT_EQ((*got.event_desc)[0].ids, (std::vector<uint64_t>{11, 12}));
  EXPECT_EQ((*got.event_desc)[1].name, "sched:sched_switch");
  EXPECT_EQ((*got.event_desc)[1].attr.config, 316u);
  ASSERT_TRUE(got.cpu_topology);
  EXPECT_EQ(got.cpu_topology->package_cpus, want.cpu_topology->package_cpus);
  EXPECT_EQ(got.cpu_topology->core_cpus, want.cpu_topology->core_cpus);
  ASSERT_EQ(got.cpu_topology->cpus.size(), 4u);
  EXPECT_EQ(got.cpu_topology->cpus[2].core_id, 1u);
  EXPECT_EQ(got.cpu_topology->die_cpus, want.cpu_topology->die_cpus);
  ASSERT_TRUE(got.build_ids);
  ASSERT_EQ(got.build_ids->size(), 2u);
  EXPECT_EQ((*got.build_ids)[0].filename, "/usr/bin/demo");
  EXPECT_EQ((*got.build_ids)[0].build_id, (*want.build_ids)[0].build_id);
  EXPECT_EQ((*got.build_ids)[0].pid, -1);
  EXPECT_EQ((*got.build_ids)[1].cpumode, PERF_RECORD_MISC_KERNEL);
  EXPECT_EQ((*got.build_ids)[1].build_id, (std::vector<uint8_t>{1, 2, 3}));
  ASSERT_TRUE(got.sample_time);
  EXPECT_EQ(got.sample_time->first, 2000u);
  EXPECT_EQ(got.sample_time->last, 3000000u);
  EXPECT_EQ(got.clockid_res_ns, want.clockid_res_ns);
}

// Checks every record of synthetic_data() as read back.
void expect_synthetic_records(PerfDataReader& reader, Diagnostics& warnings) {
  int comms = 0, mmaps = 0, forks = 0, samples = 0, raw_samples = 0, rounds = 0;
  for (RecordView r : reader.records(warnings)) {
    const EventAttr* event = reader.attrs().for_record(r);
    switch (r.type()) {
      case PERF_RECORD_COMM: {
        auto comm = CommRecord::decode(r);
        ASSERT_TRUE(comm) << comm.error().message;
        EXPECT_EQ(comm->comm, "demo");
        EXPECT_EQ(comm->pid, kPid);
        EXPECT_TRUE(comm->exec);
        ASSERT_NE(event, nullptr);
        auto id = decode_sample_id(r, event->attr);
        ASSERT_TRUE(id);
        EXPECT_EQ(id->time, 1000u);
        EXPECT_EQ(id->id, 11u);
        ++comms;
        break;
      }
      case PERF_RECORD_MMAP2: {
        auto mmap = Mmap2Record::decode(r);
        ASSERT_TRUE(mmap) << mmap.error().message;
        EXPECT_EQ(mmap->filename, "/usr/bin/demo");
        EXPECT_EQ(mmap->addr, 0x400000u);
        EXPECT_EQ(mmap->len, 0x2000u);
        EXPECT_EQ(mmap->ino, 1234u);
        EXPECT_EQ(mmap->maj, 8u);
        EXPECT_EQ(mmap->prot, static_cast<uint32_t>(PROT_READ | PROT_EXEC));
        ++mmaps;
        break;
      }
      case PERF_RECORD_FORK: {
        auto fork = ForkExitRecord::decode(r);
        ASSERT_TRUE(fork);
        EXPECT_EQ(fork->tid, kPid + 1);
        EXPECT_EQ(fork->ptid, kPid);
        EXPECT_EQ(fork->time, 1100u);
        ++forks;
        break;
      }
      case PERF_RECORD_SAMPLE: {
        ASSERT_NE(event, nullptr);
        auto sample = decode_sample(r, event->attr);
        ASSERT_TRUE(sample) << sample.error().message;
        if (event->attr.type == PERF_TYPE_TRACEPOINT) {
          EXPECT_EQ(sample->id, 21u);
          ASSERT_EQ(sample->raw.size(), 12u);  // 5 bytes padded so that 4 + size is a multiple of 8
          EXPECT_EQ(sample->raw[4], 5);
          EXPECT_EQ(r.misc() & PERF_RECORD_MISC_CPUMODE_MASK, PERF_RECORD_MISC_KERNEL);
          ++raw_samples;
          break;
        }
        EXPECT_EQ(sample->ip, 0x401136u + static_cast<uint64_t>(samples));
        EXPECT_EQ(sample->pid, kPid);
        EXPECT_EQ(sample->tid, samples % 2 ? kPid + 1 : kPid);
        EXPECT_EQ(sample->time, 2000u + static_cast<uint64_t>(samples) * 250000);
        EXPECT_EQ(sample->cpu, static_cast<uint32_t>(samples % 2));
        EXPECT_EQ(sample->period, 250000u);
        EXPECT_EQ(sample->id, 11u);
        ASSERT_EQ(sample->callchain.size(), 5u);
        for (size_t k = 0; k < 5; ++k) EXPECT_EQ(sample->callchain[k], kChain[k]);
        ++samples;
        break;
      }
      case PERF_RECORD_FINISHED_ROUND:
        ++rounds;
        break;
      default:
        break;
    }
  }
  EXPECT_FALSE(reader.error()) << reader.error()->message;
  EXPECT_EQ(comms, 1);
  EXPECT_EQ(mmaps, 1);
  EXPECT_EQ(forks, 1);
  EXPECT_EQ(samples, 5);
  EXPECT_EQ(raw_samples, 1);
  EXPECT_EQ(rounds, 1);
}

}  // namespace

TEST(PerfDataRoundTrip, FileModeRecordsAndFeatures) {
  auto clock = cpu_clock_attr();
  auto tp = tracepoint_attr();
  std::string path = temp_path("roundtrip.data");
  auto writer = PerfDataWriter::create(path);
  ASSERT_TRUE(writer) << writer.error().message;
  ASSERT_TRUE(writer->write_attrs(two_attrs(clock, tp)));
  std::string data = synthetic_data(clock, tp);
  ASSERT_TRUE(writer->append(data.data(), data.size()));
  FeatureSet features = full_features(clock, tp);
  ASSERT_TRUE(writer->finalize(features));

  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  Diagnostics warnings;
  auto reader = PerfDataReader::open(path, warnings);
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_FALSE(reader->is_pipe());
  EXPECT_EQ(warnings.count(Diagnostics::Kind::warning), 0u);
  EXPECT_EQ(reader->header().data.size, data.size());
  EXPECT_EQ(reader->header().attr_size, sizeof(FileAttr));
  ASSERT_EQ(reader->attrs().events().size(), 2u);
  EXPECT_EQ(reader->attrs().events()[0].ids, (std::vector<uint64_t>{11, 12}));
  EXPECT_EQ(reader->attrs().events()[0].name, "cpu-clock");
  EXPECT_EQ(reader->attrs().events()[1].attr.config, 316u);
  EXPECT_EQ(reader->attrs().by_id(12), &reader->attrs().events()[0]);
  EXPECT_EQ(reader->attrs().by_id(99), nullptr);
  expect_features(reader->features(), features);
  auto blob = reader->tracing_data();
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(blob.data()), blob.size()), *features.tracing_data);
  for (int f : {HEADER_TRACING_DATA, HEADER_BUILD_ID, HEADER_HOSTNAME, HEADER_NRCPUS, HEADER_CMDLINE,
                HEADER_EVENT_DESC, HEADER_CPU_TOPOLOGY, HEADER_SAMPLE_TIME, HEADER_CLOCKID})
    EXPECT_TRUE(reader->has_feature(f)) << feature_name(f);
  EXPECT_FALSE(reader->has_feature(HEADER_NUMA_TOPOLOGY));
  expect_synthetic_records(*reader, warnings);
  // A file can be walked again.
  expect_synthetic_records(*reader, warnings);
}

TEST(PerfDataRoundTrip, FinalizeWithoutRecordsOrAttrsStillGivesAValidFile) {
  std::string path = temp_path("empty.data");
  auto writer = PerfDataWriter::create(path);
  ASSERT_TRUE(writer);
  ASSERT_TRUE(writer->finalize(FeatureSet{}));
  auto reader = PerfDataReader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_TRUE(reader->attrs().empty());
  int n = 0;
  for (RecordView r : reader->records()) n += r.header.size > 0;
  EXPECT_EQ(n, 0);
  EXPECT_FALSE(reader->error());
}

TEST(PerfDataRoundTrip, PipeModeThroughAFileAndThroughADescriptor) {
  auto clock = cpu_clock_attr();
  auto tp = tracepoint_attr();
  std::string path = temp_path("pipe.data");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  FeatureSet features = full_features(clock, tp);
  std::string data = synthetic_data(clock, tp);
  {
    auto writer = PerfDataWriter::to_pipe(fd);
    ASSERT_TRUE(writer);
    ASSERT_TRUE(writer->write_attrs(two_attrs(clock, tp)));
    ASSERT_TRUE(writer->write_pipe_features(features));
    ASSERT_TRUE(writer->append(data.data(), data.size()));
    ASSERT_TRUE(writer->finalize(features));
  }
  ::close(fd);

  auto check = [&](PerfDataReader& reader) {
    EXPECT_TRUE(reader.is_pipe());
    Diagnostics warnings;
    expect_synthetic_records(reader, warnings);
    EXPECT_EQ(warnings.count(Diagnostics::Kind::warning), 0u);
    ASSERT_EQ(reader.attrs().events().size(), 2u);
    EXPECT_EQ(reader.attrs().events()[1].ids, (std::vector<uint64_t>{21}));
    EXPECT_EQ(reader.attrs().events()[1].name, "sched:sched_switch");
    expect_features(reader.features(), features);
    auto blob = reader.tracing_data();
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(blob.data()), blob.size())
                  .substr(0, features.tracing_data->size()),
              *features.tracing_data);
  };
  auto from_file = PerfDataReader::open(path);
  ASSERT_TRUE(from_file) << from_file.error().message;
  check(*from_file);

  int in = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(in, 0);
  auto from_fd = PerfDataReader::open_stream(in);
  ASSERT_TRUE(from_fd) << from_fd.error().message;
  check(*from_fd);
  ::close(in);
}

TEST(PerfDataRoundTrip, TokenizerResumesOnInputOfAnySize) {
  auto clock = cpu_clock_attr();
  auto tp = tracepoint_attr();
  std::string data = synthetic_data(clock, tp);
  // A tracing-data record too, whose blob lies outside header.size.
  TracingDataRecord td{{PERF_RECORD_HEADER_TRACING_DATA, 0, sizeof(TracingDataRecord)}, 16};
  data += std::string(reinterpret_cast<const char*>(&td), sizeof td) + std::string(16, 'T');
  data += make_finished_round();
  auto bytes = Bytes(reinterpret_cast<const uint8_t*>(data.data()), data.size());

  auto tokenize = [&](size_t chunk) {
    std::vector<std::pair<uint32_t, std::string>> out;
    RecordTokenizer tokenizer(100);
    size_t fed = 0;
    while (true) {
      RecordView r;
      auto status = tokenizer.next(r);
      EXPECT_TRUE(status.has_value()) << status.error().message;
      if (!status) break;
      if (*status == RecordTokenizer::Status::Record) {
        out.emplace_back(r.type(),
                         std::string(reinterpret_cast<const char*>(r.bytes.data()), r.bytes.size()));
        continue;
      }
      EXPECT_EQ(*status, RecordTokenizer::Status::NeedMore);
      if (fed == bytes.size()) break;
      size_t n = std::min(chunk, bytes.size() - fed);
      tokenizer.feed(bytes.subspan(fed, n));
      fed += n;
    }
    EXPECT_EQ(tokenizer.pending_bytes(), 0u);
    EXPECT_EQ(tokenizer.offset(), 100 + data.size());
    return out;
  };
  auto whole = tokenize(data.size());
  ASSERT_EQ(whole.size(), 12u);
  EXPECT_EQ(whole[10].first, PERF_RECORD_HEADER_TRACING_DATA);
  EXPECT_EQ(whole[10].second.size(), sizeof(TracingDataRecord) + 16);
  for (size_t chunk : {1, 3, 7, 8, 13, 64}) EXPECT_EQ(tokenize(chunk), whole) << "chunk " << chunk;
}

TEST(PerfDataRoundTrip, SampleDecodingOfReadGroupsRegsAndStacks) {
  perf_event_attr attr{};
  attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
                     PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
  attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
  attr.sample_regs_user = (1u << 6) | (1u << 7) | (1u << 8);  // bp, sp, ip on x86
  ByteWriter w;
  w.put(perf_event_header{PERF_RECORD_SAMPLE, 0, 0});
  w.put(uint32_t{7});
  w.put(uint32_t{8});                            // TID
  w.put(uint64_t{2});                            // READ nr
  w.put(uint64_t{999});                          // time_enabled
  for (uint64_t v : {100, 1, 200, 2}) w.put(v);  // {value, id} x 2
  w.put(uint64_t{PERF_SAMPLE_REGS_ABI_64});
  for (uint64_t v : {0x1000, 0x2000, 0x3000}) w.put(v);  // REGS_USER
  w.put(uint64_t{16});
  w.put_bytes("0123456789abcdef", 16);
  w.put(uint64_t{8});   // STACK_USER dyn_size
  w.put(uint64_t{55});  // WEIGHT
  w.put(uint64_t{66});  // DATA_SRC
  w.put(uint64_t{77});  // PHYS_ADDR
  std::string bytes = w.str();
  uint16_t size = static_cast<uint16_t>(bytes.size());
  std::memcpy(bytes.data() + 6, &size, 2);
  RecordView r;
  r.header = load<perf_event_header>(reinterpret_cast<const uint8_t*>(bytes.data()));
  r.bytes = Bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  auto s = decode_sample(r, attr);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->tid, 8u);
  ASSERT_EQ(s->read.nr, 2u);
  EXPECT_EQ(s->read.time_enabled, 999u);
  EXPECT_EQ(s->read.value(1).value, 200u);
  EXPECT_EQ(s->read.value(1).id, 2u);
  EXPECT_EQ(s->regs_user.abi, static_cast<uint64_t>(PERF_SAMPLE_REGS_ABI_64));
  EXPECT_EQ(s->regs_user.get(7), 0x2000u);
  EXPECT_FALSE(s->regs_user.get(3));
  EXPECT_EQ(s->stack_user.size(), 16u);
  EXPECT_EQ(s->stack_user_dyn_size, 8u);
  EXPECT_EQ(s->weight, 55u);
  EXPECT_EQ(s->data_src, 66u);
  EXPECT_EQ(s->phys_addr, 77u);

  // One byte short: the last field is named in the error.
  r.header.size = static_cast<uint16_t>(size - 8);
  r.bytes = r.bytes.first(size - 8);
  auto cut = decode_sample(r, attr);
  ASSERT_FALSE(cut);
  EXPECT_NE(cut.error().message.find("PHYS_ADDR"), std::string::npos) << cut.error().message;
}
