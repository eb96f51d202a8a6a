// Corrupted and truncated perf.data files: each gives a one-line error naming the offset, or the
// readable prefix with a warning; never a crash or a hang (these also run under ASan+UBSan).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <random>

#include "format/perf_format.hpp"
#include "format/sample.hpp"
#include "format/synthesize.hpp"
#include "perfdata/kernel_records.hpp"
#include "perfdata/reader.hpp"
#include "perfdata/writer.hpp"
#include "temp_dir.hpp"

using namespace sonde;
using namespace sonde::perfdata;

namespace {

std::string temp_dir() { return test::unit_temp_dir(); }

perf_event_attr attr_with_callchain() {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = 100000;
  attr.sample_type =
      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  attr.sample_id_all = 1;
  return attr;
}

struct Layout {
  std::string bytes;
  uint64_t data_offset = 0;
  uint64_t data_size = 0;
  std::vector<uint64_t> record_offsets;  // file offsets of the data records
};

// A valid file: one attr, COMM, MMAP2 and 10 samples, a few features.
Layout valid_file() {
  auto attr = attr_with_callchain();
  std::string path = temp_dir() + "/valid.data";
  auto writer = PerfDataWriter::create(path);
  EXPECT_TRUE(writer);
  std::vector<AttrWithIds> attrs{{attr, {7}}};
  EXPECT_TRUE(writer->write_attrs(attrs));
  std::vector<std::string> records;
  records.push_back(make_comm(attr, 10, 10, "victim", true, {10, 10, 5}));
  SyntheticMmap2 m{10, 10, 0x400000, 0x1000, 0, 0, 0, 0, 0, 5, 2, "/bin/victim"};
  records.push_back(make_mmap2(attr, m, {10, 10, 6}));
  const uint64_t chain[] = {PERF_CONTEXT_USER, 0x400100, 0x400200};
  for (int i = 0; i < 10; ++i) {
    SyntheticSample s;
    s.ip = 0x400100;
    s.pid = s.tid = 10;
    s.time = 100 + static_cast<uint64_t>(i);
    s.period = 100000;
    s.callchain = chain;
    records.push_back(*make_sample(attr, s));
  }
  for (const auto& r : records) EXPECT_TRUE(writer->append(r.data(), r.size()));
  FeatureSet f;
  f.hostname = "h";
  f.nr_cpus = NrCpus{2, 2};
  f.event_desc = std::vector<EventDesc>{{attr, "cpu-clock", {7}}};
  EXPECT_TRUE(writer->finalize(f));
  Layout layout;
  std::ifstream in(path, std::ios::binary);
  layout.bytes.assign(std::istreambuf_iterator<char>(in), {});
  FileHeader header;
  std::memcpy(&header, layout.bytes.data(), sizeof header);
  layout.data_offset = header.data.offset;
  layout.data_size = header.data.size;
  uint64_t at = header.data.offset;
  for (const auto& r : records) {
    layout.record_offsets.push_back(at);
    at += r.size();
  }
  return layout;
}

template <typename T>
void poke(std::string& bytes, uint64_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

struct Outcome {
  std::string open_error;  // set when open() failed
  std::string iter_error;  // set when records() stopped on an error
  std::vector<std::string> warnings;
  int records = 0;
  int samples_decoded = 0;
};

// Opens, walks every record and decodes every sample and side-band record: nothing may crash.
Outcome read_everything(const std::string& bytes) {
  static int n = 0;
  std::string path = temp_dir() + "/case" + std::to_string(n++) + ".data";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  Outcome outcome;
  Diagnostics warnings;
  auto reader = PerfDataReader::open(path, warnings);
  if (!reader) {
    outcome.open_error = reader.error().message;
    unlink(path.c_str());
    return outcome;
  }
  for (RecordView r : reader->records(warnings)) {
    ++outcome.records;
    const EventAttr* event = reader->attrs().for_record(r);
    if (r.type() == PERF_RECORD_SAMPLE && event) {
      auto s = decode_sample(r, event->attr);
      if (s) {
        ++outcome.samples_decoded;
        for (size_t i = 0; i < s->callchain.size(); ++i) (void)s->callchain[i];
      }
    }
    if (r.type() == PERF_RECORD_MMAP2) (void)Mmap2Record::decode(r);
    if (r.type() == PERF_RECORD_COMM) (void)CommRecord::decode(r);
    if (event) (void)decode_sample_id(r, event->attr);
  }
  if (reader->error()) outcome.iter_error = reader->error()->message;
  for (const Diagnostics::Message& warning : warnings.messages()) outcome.warnings.push_back(warning.text);
  unlink(path.c_str());
  return outcome;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
bool any_contains(const std::vector<std::string>& texts, const std::string& part) {
  for (const auto& t : texts)
    if (contains(t, part)) return true;
  return false;
}

}  // namespace

TEST(PerfDataCorrupt, TheValidFileReadsWhole) {
  auto layout = valid_file();
  auto outcome = read_everything(layout.bytes);
  EXPECT_EQ(outcome.open_error, "");
  EXPECT_EQ(outcome.iter_error, "");
  EXPECT_TRUE(outcome.warnings.empty());
  EXPECT_EQ(outcome.records, 12);
  EXPECT_EQ(outcome.samples_decoded, 10);
}

// Each case: a corruption, and what the reader must say about it.
struct Corruption {
  const char* name;
  std::function<void(std::string&, const Layout&)> apply;
  enum Expect { OpenError, IterError, Warning } expect;
  const char* message_part;
  int min_records = 0;  // records still delivered (prefix)
};

TEST(PerfDataCorrupt, EachCorruptionGivesAOneLineErrorOrAWarning) {
  const auto layout = valid_file();
  const uint64_t data_end = layout.data_offset + layout.data_size;
  const uint64_t sample3 = layout.record_offsets[5];
  std::vector<Corruption> cases = {
      {"empty file", [](std::string& b, const Layout&) { b.clear(); }, Corruption::OpenError, "too short"},
      {"bad magic", [](std::string& b, const Layout&) { b[0] = 'X'; }, Corruption::OpenError,
       "bad magic at offset 0x0"},
      {"other endianness", [](std::string& b, const Layout&) { poke(b, 0, kPerfMagicSwapped); },
       Corruption::OpenError, "other byte order"},
      {"header size", [](std::string& b, const Layout&) { poke<uint64_t>(b, 8, 200); }, Corruption::OpenError,
       "bad header size 200 at offset 0x8"},
      {"cut inside the header", [](std::string& b, const Layout&) { b.resize(50); }, Corruption::OpenError,
       "cut inside the 104-byte header"},
      {"attr size", [](std::string& b, const Layout&) { poke<uint64_t>(b, 0x10, 7); }, Corruption::OpenError,
       "bad attr size 7 at offset 0x10"},
      {"attrs section past EOF", [](std::string& b, const Layout&) { poke<uint64_t>(b, 0x18, 1 << 30); },
       Corruption::OpenError, "attrs section at offset 0x40000000"},
      {"attrs size not a multiple", [](std::string& b, const Layout&) { poke<uint64_t>(b, 0x20, 100); },
       Corruption::OpenError, "not a multiple of the attr size"},
      {"attr's own size field",
       [](std::string& b, const Layout&) {
         FileHeader h;
         std::memcpy(&h, b.data(), sizeof h);
         poke<uint32_t>(b, h.attrs.offset + offsetof(perf_event_attr, size), 9999);
       },
       Corruption::OpenError, "its size field says 9999"},
      {"ids past EOF",
       [](std::string& b, const Layout&) {
         FileHeader h;
         std::memcpy(&h, b.data(), sizeof h);
         poke<uint64_t>(b, h.attrs.offset + sizeof(perf_event_attr), uint64_t{1} << 40);
       },
       Corruption::OpenError, "its ids"},
      {"data offset past EOF",
       [](std::string& b, const Layout&) { poke<uint64_t>(b, 0x28, uint64_t{1} << 40); },
       Corruption::OpenError, "data section offset 0x10000000000 at offset 0x28"},
      {"record size 0", [=](std::string& b, const Layout&) { poke<uint16_t>(b, sample3 + 6, 0); },
       Corruption::IterError, "has size 0, below the 8-byte header", 5},
      {"record size 4", [=](std::string& b, const Layout&) { poke<uint16_t>(b, sample3 + 6, 4); },
       Corruption::IterError, "has size 4", 5},
      {"last record past the end of the data section",
       [&](std::string& b, const Layout& l) { poke<uint16_t>(b, l.record_offsets.back() + 6, 0xfff8); },
       Corruption::IterError, "runs past the end of the data section", 11},
      {"file cut mid-record", [=](std::string& b, const Layout&) { b.resize(sample3 + 20); },
       Corruption::Warning, "ends inside a record", 5},
      {"file cut at a record boundary", [=](std::string& b, const Layout&) { b.resize(sample3); },
       Corruption::Warning, "is cut at the end of the file", 5},
      {"feature table lost", [=](std::string& b, const Layout&) { b.resize(data_end + 8); },
       Corruption::Warning, "feature table", 12},
      {"feature section past EOF",
       [=](std::string& b, const Layout&) { poke<uint64_t>(b, data_end, uint64_t{1} << 40); },
       Corruption::Warning, "lies outside the file", 12},
      {"feature content garbage",
       [=](std::string& b, const Layout&) {
         // The last feature is EVENT_DESC: claim a huge event count.
         FileSection s;
         std::memcpy(&s, b.data() + data_end + 2 * sizeof(FileSection), sizeof s);
         poke<uint32_t>(b, s.offset, 0xffffffff);
       },
       Corruption::Warning, "feature EVENT_DESC", 12},
      {"data size 0 (unfinished recording)",
       [=](std::string& b, const Layout&) {
         // The placeholder header of an interrupted writer: no data size, no features.
         poke<uint64_t>(b, 0x30, 0);
         poke<uint64_t>(b, 0x48, 0);
         b.resize(data_end);
       },
       Corruption::Warning, "data size field is 0", 12},
      {"callchain length huge",
       [=](std::string& b, const Layout&) {
         // nr sits after IP, TID, TIME, PERIOD.
         poke<uint64_t>(b, sample3 + 8 + 32, uint64_t{1} << 60);
       },
       Corruption::Warning /* the walk is fine, that sample does not decode */, "", 12},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string bytes = layout.bytes;
    c.apply(bytes, layout);
    auto outcome = read_everything(bytes);
    switch (c.expect) {
      case Corruption::OpenError:
        EXPECT_TRUE(contains(outcome.open_error, c.message_part)) << outcome.open_error;
        EXPECT_EQ(outcome.open_error.find('\n'), std::string::npos);
        break;
      case Corruption::IterError:
        EXPECT_EQ(outcome.open_error, "");
        EXPECT_TRUE(contains(outcome.iter_error, c.message_part)) << outcome.iter_error;
        EXPECT_TRUE(contains(outcome.iter_error, "offset 0x")) << outcome.iter_error;
        EXPECT_GE(outcome.records, c.min_records);
        break;
      case Corruption::Warning:
        EXPECT_EQ(outcome.open_error, "");
        EXPECT_EQ(outcome.iter_error, "");
        if (*c.message_part) {
          EXPECT_TRUE(any_contains(outcome.warnings, c.message_part))
              << ::testing::PrintToString(outcome.warnings);
        }
        EXPECT_GE(outcome.records, c.min_records);
        break;
    }
  }
}

TEST(PerfDataCorrupt, AHugeCallchainCountIsAnErrorNotAnOverread) {
  auto layout = valid_file();
  poke<uint64_t>(layout.bytes, layout.record_offsets[5] + 8 + 32, uint64_t{1} << 60);
  auto outcome = read_everything(layout.bytes);
  EXPECT_EQ(outcome.samples_decoded, 9);
}

TEST(PerfDataCorrupt, GarbageInACompressedRecordStopsWithAnError) {
  auto layout = valid_file();
  // Turn the third sample into a COMPRESSED record full of junk.
  uint64_t at = layout.record_offsets[4];
  poke<uint32_t>(layout.bytes, at, PERF_RECORD_COMPRESSED);
  auto outcome = read_everything(layout.bytes);
  EXPECT_TRUE(contains(outcome.iter_error, "COMPRESSED record at offset")) << outcome.iter_error;
  EXPECT_EQ(outcome.records, 4);
}

TEST(PerfDataCorrupt, RandomByteFlipsNeverCrash) {
  auto layout = valid_file();
  std::mt19937 rng(12345);
  int errors = 0, opened = 0;
  for (int round = 0; round < 300; ++round) {
    std::string bytes = layout.bytes;
    int flips = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < flips; ++i) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    // It must return, and what it says of the damage is one line.
    auto outcome = read_everything(bytes);
    for (const std::string* error : {&outcome.open_error, &outcome.iter_error}) {
      EXPECT_EQ(error->find('\n'), std::string::npos) << *error;
      if (!error->empty()) ++errors;
    }
    if (outcome.open_error.empty()) ++opened;
  }
  // The damage is found in some rounds and read past (a flipped payload byte) in others.
  EXPECT_GT(errors, 0);
  EXPECT_GT(opened, 0);
}

// The session skips records of unknown types by is_known_record_type: it must know exactly the
// types record_type_name names.
TEST(RecordTypes, KnownTypesAreTheNamedOnes) {
  for (uint32_t type = 0; type < 512; ++type)
    EXPECT_EQ(sonde::perfdata::is_known_record_type(type),
              sonde::perfdata::record_type_name(type) != "UNKNOWN")
        << type;
}
