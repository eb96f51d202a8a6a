// The session's read-ahead thread delivers exactly what reading on one thread delivers, in the
// same order (rounds out of time order, records stamped 0, perf's own records, an attr added
// mid-file); a visitor that throws stops both threads. And the channel between them.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "format/synthesize.hpp"
#include "perfdata/writer.hpp"
#include "pseudo_terminal.hpp"
#include "session/batch_channel.hpp"
#include "session/session.hpp"
#include "temp_dir.hpp"

using namespace sonde;
using namespace sonde::perfdata;

namespace {

constexpr uint32_t kPid = 5150;

perf_event_attr clock_attr() {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.size = sizeof attr;
  attr.sample_period = 1000;
  attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
  attr.sample_id_all = 1;
  attr.mmap = attr.comm = attr.task = attr.mmap2 = attr.comm_exec = 1;
  return attr;
}

// PERF_RECORD_HEADER_ATTR: the attr then its ids, as perf writes in pipe mode.
std::string header_attr_record(const perf_event_attr& attr, uint64_t id) {
  perf_event_header header{};
  header.type = PERF_RECORD_HEADER_ATTR;
  header.size = static_cast<uint16_t>(sizeof header + sizeof attr + sizeof id);
  std::string bytes(reinterpret_cast<const char*>(&header), sizeof header);
  bytes.append(reinterpret_cast<const char*>(&attr), sizeof attr);
  bytes.append(reinterpret_cast<const char*>(&id), sizeof id);
  return bytes;
}

// `rounds` rounds of 1500 samples from three CPUs, each round out of time order and reaching
// back into the round before (perf flushes only up to the previous round's highest time); a
// COMM and an MMAP2 now and then, records stamped 0, and halfway a HEADER_ATTR adding event
// 12, whose samples follow. Several read-ahead batches' worth.
std::string write_recording(const std::string& name, int rounds) {
  std::string path = test::unit_temp_dir() + "/" + name;
  perf_event_attr attr = clock_attr();
  auto writer = PerfDataWriter::create(path);
  EXPECT_TRUE(writer);
  std::vector<AttrWithIds> attrs{{attr, {11}}};
  EXPECT_TRUE(writer->write_attrs(attrs));
  std::string data;
  data += make_comm(attr, kPid, kPid, "early", false, SyntheticId{kPid, kPid, 0, 11, 0, 0});  // stamped 0
  uint32_t lcg = 12345;
  auto next_random = [&] { return lcg = lcg * 1103515245u + 12345u; };
  for (int r = 0; r < rounds; ++r) {
    uint64_t base = 1'000'000 + static_cast<uint64_t>(r) * 1'000'000;
    SyntheticId id{kPid, kPid, base + 10, 11, 0, 0};
    data += make_comm(attr, kPid, kPid, fmt::format("round{}", r), r == 0, id);
    if (r % 3 == 0) {
      SyntheticMmap2 mmap{kPid,
                          kPid,
                          0x400000 + 0x10000 * static_cast<uint64_t>(r),
                          0x2000,
                          0,
                          8,
                          1,
                          77,
                          0,
                          PROT_READ | PROT_EXEC,
                          MAP_PRIVATE,
                          "/usr/bin/demo"};
      data += make_mmap2(attr, mmap, SyntheticId{kPid, kPid, base + 20, 11, 0, 0});
    }
    if (r == rounds / 2) data += header_attr_record(attr, 12);
    for (int i = 0; i < 1500; ++i) {
      SyntheticSample s;
      s.ip = 0x401000 + static_cast<uint64_t>(i);
      s.pid = kPid;
      s.tid = kPid + static_cast<uint32_t>(i % 3);
      s.cpu = static_cast<uint32_t>(i % 3);
      s.time = base - 400'000 + next_random() % 1'300'000;  // overlaps the round before
      s.id = r > rounds / 2 && i % 2 ? 12 : 11;
      s.period = 1000;
      data += *make_sample(attr, s);
    }
    data += make_finished_round();
  }
  EXPECT_TRUE(writer->append(data.data(), data.size()));
  EXPECT_TRUE(writer->finalize(FeatureSet{}));
  return path;
}

// Writes down everything the visitor is shown, in order.
struct Log : session::SessionVisitor {
  std::vector<std::string> lines;
  size_t samples = 0;
  size_t throw_at = SIZE_MAX;
  size_t records = 0;
  size_t fail_at_record = SIZE_MAX;  // on_record fails at this one
  void on_sample(const session::SampleEvent& s) override {
    if (++samples == throw_at) throw std::runtime_error("visitor gave up");
    lines.push_back(fmt::format("S {} {} {} {} {} {}", s.sample.time, s.sample.tid, s.thread.comm,
                                s.event_index, s.callchain.size(), s.record.offset));
  }
  sonde::Result<void> on_record(const RecordView& record, const EventAttr* attr,
                                const SampleId& id) override {
    if (++records == fail_at_record) return sonde::fail("visitor refused a record");
    lines.push_back(fmt::format("R {} {} {} {}", record.type(), record.offset, attr != nullptr, id.time));
    return {};
  }
};

Log replay(const std::string& path, bool read_ahead) {
  auto session = session::Session::open(path);
  EXPECT_TRUE(session) << session.error().message;
  session->set_read_ahead(read_ahead);
  Log log;
  auto processed = session->process(log);
  EXPECT_TRUE(processed) << processed.error().message;
  return log;
}

}  // namespace

TEST(SessionReadAhead, DeliversWhatOneThreadDeliversInTheSameOrder) {
  std::string path = write_recording("read_ahead.data", 12);
  Log one_thread = replay(path, false);
  Log ahead = replay(path, true);
  ASSERT_EQ(one_thread.samples, 12u * 1500u);
  ASSERT_EQ(ahead.lines.size(), one_thread.lines.size());
  for (size_t i = 0; i < ahead.lines.size(); ++i)
    ASSERT_EQ(ahead.lines[i], one_thread.lines[i]) << "at line " << i;

  // What the ordering promises: samples in time order, the added event's samples named by it.
  uint64_t last = 0;
  size_t second_event = 0;
  for (const std::string& line : ahead.lines) {
    if (line[0] != 'S') continue;
    uint64_t time = std::stoull(line.substr(2));
    EXPECT_GE(time, last) << line;
    last = time;
    second_event += line.find(" 1 1 ") != std::string::npos;
  }
  EXPECT_EQ(second_event, 5u * 750u);
}

TEST(SessionReadAhead, AVisitorThatThrowsStopsTheReadingAndTheFileCanBeReplayedAgain) {
  std::string path = write_recording("read_ahead_throw.data", 8);
  auto session = session::Session::open(path);
  ASSERT_TRUE(session) << session.error().message;
  Log failing;
  failing.throw_at = 5000;
  EXPECT_THROW((void)session->process(failing), std::runtime_error);
  EXPECT_EQ(failing.samples, 5000u);
  // The session can replay the file again, whole.
  auto again = session::Session::open(path);
  ASSERT_TRUE(again);
  Log whole;
  ASSERT_TRUE(again->process(whole));
  EXPECT_EQ(whole.samples, 8u * 1500u);
}

TEST(SessionReadAhead, AVisitorsFailedRecordStopsTheReplayAndProcessReturnsIt) {
  std::string path = write_recording("read_ahead_fail.data", 8);
  for (bool read_ahead : {false, true}) {
    auto session = session::Session::open(path);
    ASSERT_TRUE(session) << session.error().message;
    session->set_read_ahead(read_ahead);
    Log failing;
    failing.fail_at_record = 3;
    auto processed = session->process(failing);
    ASSERT_FALSE(processed) << "read ahead " << read_ahead;
    EXPECT_EQ(processed.error().message, "visitor refused a record");
    EXPECT_EQ(failing.records, 3u);
    EXPECT_LT(failing.samples, 8u * 1500u);
  }
}

TEST(SessionBatchChannel, BatchesArriveInOrderAndCancelStopsTheProducer) {
  session::BatchChannel<int> channel(2);
  std::thread producer([&] {
    std::vector<int> batch;
    for (int i = 0; i < 20000; ++i) {
      batch.push_back(i);
      if (batch.size() == 7 && !channel.put(batch)) return;
    }
    if (!batch.empty()) channel.put(batch);
    channel.close();
  });
  std::vector<int> batch;
  int expected = 0;
  while (channel.take(batch))
    for (int value : batch) ASSERT_EQ(value, expected++);
  producer.join();
  EXPECT_EQ(expected, 20000);

  session::BatchChannel<int> cancelled(1);
  std::atomic<bool> stopped{false};
  std::thread endless([&] {
    std::vector<int> items{1, 2, 3};
    while (cancelled.put(items)) items = {1, 2, 3};
    stopped = true;
    cancelled.close();
  });
  ASSERT_TRUE(cancelled.take(batch));
  EXPECT_EQ(batch, (std::vector<int>{1, 2, 3}));
  cancelled.cancel();
  endless.join();
  EXPECT_TRUE(stopped);
}

TEST(SessionProgress, APassDrawsItsLineOnAStderrTerminalAndErasesIt) {
  std::string path = write_recording("progress.data", 6);
  test::PseudoTerminal pty;
  ASSERT_NE(pty.terminal, nullptr) << "no pseudo-terminal";
  ::setenv("SONDE_PROGRESS_DELAY_MS", "0", 1);
  std::fflush(stderr);
  int saved = ::dup(STDERR_FILENO);
  ::dup2(pty.slave, STDERR_FILENO);
  bool processed = false;
  {
    auto session = session::Session::open(path);
    if (session) {
      session->show_progress("sonde test: reading progress.data");
      Log log;
      processed = session->process(log).has_value();
    }
  }
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::unsetenv("SONDE_PROGRESS_DELAY_MS");
  ASSERT_TRUE(processed);
  std::string written = pty.read();
  EXPECT_NE(written.find("\rsonde test: reading progress.data: "), std::string::npos) << written.size();
  ASSERT_GE(written.size(), 4u);
  EXPECT_EQ(written.substr(written.size() - 4), "\r\033[K");
}
