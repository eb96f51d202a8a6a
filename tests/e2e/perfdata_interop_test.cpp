// perf.data interop with perf 6.1, both ways: sonde's reader on files `perf record` writes
// (compared sample for sample with `perf script -D`), and perf report/script on a file sonde's
// writer makes (exit 0, nothing on stderr, our features in the header).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

#include "base/strings.hpp"
#include "format/sample.hpp"
#include "format/synthesize.hpp"
#include "perfdata/machine_facts.hpp"
#include "perfdata/reader.hpp"
#include "perfdata/writer.hpp"
#include "run.hpp"

using namespace sonde;
using namespace sonde::perfdata;
using namespace sonde::test;

namespace {

struct SampleLine {
  uint64_t time = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t ip = 0, period = 0;
  std::vector<uint64_t> chain;
  bool operator==(const SampleLine&) const = default;
};

std::ostream& operator<<(std::ostream& out, const SampleLine& s) {
  out << fmt::format("{{time {} {}/{} ip {:#x} period {} chain", s.time, s.pid, s.tid, s.ip, s.period);
  for (uint64_t ip : s.chain) out << fmt::format(" {:x}", ip);
  return out << "}";
}

// The samples of `perf script -D`: "TIME OFFSET [SIZE]: PERF_RECORD_SAMPLE(IP, MISC): PID/TID: IP
// period: N addr: A", then "... FP chain: nr:N" and ".....  i: HEX" lines.
std::vector<SampleLine> perf_dump_samples(const std::string& dump) {
  static const std::regex sample_re(
      R"(^(?:\d+ )?(\d+) 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE\([^)]*\): (-?\d+)/(-?\d+): 0x([0-9a-f]+) period: (\d+))");
  static const std::regex chain_re(R"(^\.\.\.\.\.\s+\d+: ([0-9a-f]+))");
  std::vector<SampleLine> samples;
  bool in_chain = false;
  for (const auto& line : lines(dump)) {
    std::smatch m;
    if (std::regex_search(line, m, sample_re)) {
      SampleLine s;
      s.time = std::stoull(m[1]);
      s.pid = static_cast<uint32_t>(std::stol(m[2]));
      s.tid = static_cast<uint32_t>(std::stol(m[3]));
      s.ip = std::stoull(m[4], nullptr, 16);
      s.period = std::stoull(m[5]);
      samples.push_back(s);
      in_chain = false;
    } else if (!samples.empty() && line.rfind("... FP chain:", 0) == 0) {
      in_chain = true;
    } else if (in_chain && std::regex_search(line, m, chain_re)) {
      samples.back().chain.push_back(std::stoull(m[1], nullptr, 16));
    } else {
      in_chain = false;
    }
  }
  return samples;
}

struct OurRead {
  std::vector<SampleLine> samples;
  std::map<std::string, int> per_event;
  std::vector<std::string> warnings;
  std::string error;
  size_t raw_samples = 0;
};

OurRead read_with_sonde(PerfDataReader& reader) {
  Diagnostics warnings;
  OurRead out;
  for (RecordView r : reader.records(warnings)) {
    if (r.type() != PERF_RECORD_SAMPLE) continue;
    const EventAttr* event = reader.attrs().for_record(r);
    if (!event) {
      out.error = fmt::format("sample at {:#x} matches no attr", r.offset);
      break;
    }
    auto s = decode_sample(r, event->attr);
    if (!s) {
      out.error = s.error().message;
      break;
    }
    // Without PERF_SAMPLE_PERIOD every sample stands for the attr's fixed period, as perf says.
    uint64_t period = s->has(PERF_SAMPLE_PERIOD) ? s->period : event->attr.sample_period;
    SampleLine line{s->time, s->pid, s->tid, s->ip, period, {}};
    for (size_t i = 0; i < s->callchain.size(); ++i) line.chain.push_back(s->callchain[i]);
    out.samples.push_back(line);
    out.per_event[event->name]++;
    if (!s->raw.empty()) ++out.raw_samples;
  }
  if (reader.error()) out.error = reader.error()->message;
  for (const Diagnostics::Message& warning : warnings.messages()) out.warnings.push_back(warning.text);
  return out;
}

// perf's own count of samples per event name.
std::map<std::string, int> perf_counts(const std::string& file) {
  auto result = run("perf script -F event -i " + shell_quote(file));
  std::map<std::string, int> counts;
  for (auto line : lines(result.out)) {
    std::string name(trim(line));
    if (!name.empty() && name.back() == ':') name.pop_back();
    counts[name]++;
  }
  return counts;
}

// Records `args` with perf into `file` and checks sonde reads the same samples perf dumps.
void expect_same_samples_as_perf(const std::string& file, const std::string& record_args,
                                 size_t min_samples) {
  auto rec = run("perf record -o " + shell_quote(file) + " " + record_args);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto dump = run("perf script -D -i " + shell_quote(file));
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  auto theirs = perf_dump_samples(dump.out);
  ASSERT_GE(theirs.size(), min_samples) << rec.err;

  Diagnostics header_warnings;
  auto reader = PerfDataReader::open(file, header_warnings);
  ASSERT_TRUE(reader) << reader.error().message;
  auto ours = read_with_sonde(*reader);
  EXPECT_EQ(ours.error, "");
  EXPECT_EQ(header_warnings.count(Diagnostics::Kind::warning), 0u);
  EXPECT_TRUE(ours.warnings.empty()) << ours.warnings.front();
  // perf delivers samples in time order (file order is per ring buffer); ties keep file order.
  auto by_time = [](const SampleLine& a, const SampleLine& b) { return a.time < b.time; };
  std::stable_sort(ours.samples.begin(), ours.samples.end(), by_time);
  ASSERT_EQ(ours.samples.size(), theirs.size());
  for (size_t i = 0; i < theirs.size(); ++i) ASSERT_EQ(ours.samples[i], theirs[i]) << "sample " << i;
  EXPECT_EQ(ours.per_event, perf_counts(file));
}

}  // namespace

TEST(PerfDataInterop, ReadsPerfRecordCpuClockWithCallchains) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  expect_same_samples_as_perf(temp_dir() + "/cpu-clock.data",
                              "-e cpu-clock -g -- " + workload("demo") + " 300000 4 >/dev/null", 20);
}

TEST(PerfDataInterop, ReadsPerfRecordWithSeveralEvents) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  std::string file = temp_dir() + "/two.data";
  expect_same_samples_as_perf(
      file, "-e cpu-clock,task-clock -c 100000 -g -- " + workload("demo") + " 300000 4 >/dev/null", 20);
  auto counts = perf_counts(file);
  EXPECT_GT(counts["cpu-clock"], 0);
  EXPECT_GT(counts["task-clock"], 0);
}

TEST(PerfDataInterop, ReadsPerfRecordTracepointsWithTracingData) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  std::string file = temp_dir() + "/sched.data";
  expect_same_samples_as_perf(file, "-e sched:sched_switch -a -- sleep 0.1", 1);
  auto reader = PerfDataReader::open(file);
  ASSERT_TRUE(reader);
  // The tracing data blob starts with perf's magic "\027\010\104tracing".
  auto blob = reader->tracing_data();
  ASSERT_GT(blob.size(), 10u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(blob.data()) + 3, 7), "tracing");
  auto ours = read_with_sonde(*reader);
  EXPECT_EQ(ours.raw_samples, ours.samples.size());
  EXPECT_GT(ours.per_event["sched:sched_switch"], 0);
}

TEST(PerfDataInterop, ReadsPerfRecordDwarfCallGraphs) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  // Registers and an 8 KiB stack copy in every sample: the largest records perf writes.
  std::string file = temp_dir() + "/dwarf.data";
  expect_same_samples_as_perf(
      file, "-e cpu-clock --call-graph dwarf -- " + workload("demo") + " 100000 2 >/dev/null", 20);
}

TEST(PerfDataInterop, ReadsPerfRecordCompressed) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  std::string file = temp_dir() + "/z.data";
  expect_same_samples_as_perf(file, "-z -e cpu-clock -g -- " + workload("demo") + " 300000 4 >/dev/null", 20);
  auto reader = PerfDataReader::open(file);
  ASSERT_TRUE(reader);
  ASSERT_TRUE(reader->features().compressed);
  EXPECT_EQ(reader->features().compressed->type, 1u);  // zstd
}

TEST(PerfDataInterop, ReadsPerfPipeModeFromAFileAndFromAPipe) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  std::string file = temp_dir() + "/pipe.data";
  auto rec = run("perf record -e cpu-clock -g -o - -- " + workload("demo") + " 300000 4 2>/dev/null >" +
                 shell_quote(file));
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto dump = run("perf script -D -i - < " + shell_quote(file));
  auto theirs = perf_dump_samples(dump.out);
  ASSERT_GE(theirs.size(), 20u);

  auto from_file = PerfDataReader::open(file);
  ASSERT_TRUE(from_file) << from_file.error().message;
  // perf delivers samples in time order; the file holds them per ring buffer (ties keep file order).
  auto by_time = [](const SampleLine& a, const SampleLine& b) { return a.time < b.time; };
  auto ours = read_with_sonde(*from_file);
  EXPECT_EQ(ours.error, "");
  std::stable_sort(ours.samples.begin(), ours.samples.end(), by_time);
  EXPECT_EQ(ours.samples, theirs);
  EXPECT_EQ(from_file->attrs().events().size(), 1u);
  EXPECT_TRUE(from_file->features().hostname);
  EXPECT_TRUE(from_file->features().event_desc);

  FILE* pipe = popen(("cat " + shell_quote(file)).c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  auto from_pipe = PerfDataReader::open_stream(fileno(pipe));
  ASSERT_TRUE(from_pipe) << from_pipe.error().message;
  auto piped = read_with_sonde(*from_pipe);
  pclose(pipe);
  EXPECT_EQ(piped.error, "");
  std::stable_sort(piped.samples.begin(), piped.samples.end(), by_time);
  EXPECT_EQ(piped.samples, theirs);
  EXPECT_EQ(piped.per_event["cpu-clock"], static_cast<int>(theirs.size()));
}

namespace {

// Symbol addresses of a binary, from nm.
std::map<std::string, uint64_t> symbols_of(const std::string& binary) {
  std::map<std::string, uint64_t> symbols;
  for (const auto& line : lines(run("nm " + shell_quote(binary)).out)) {
    auto fields = split(line, ' ');
    if (fields.size() == 3) symbols[fields[2]] = std::stoull(fields[0], nullptr, 16);
  }
  return symbols;
}

std::vector<uint8_t> build_id_of(const std::string& binary) {
  std::smatch m;
  std::string notes = run("readelf -n " + shell_quote(binary)).out;
  std::vector<uint8_t> id;
  if (!std::regex_search(notes, m, std::regex("Build ID: ([0-9a-f]+)"))) return id;
  std::string hex = m[1];
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    id.push_back(static_cast<uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  return id;
}

// A recording of the demo workload made by sonde's writer: a cpu-clock attr, COMM and MMAP2 for
// the process, 8 samples in main -> run -> work -> hot_leaf with frame-pointer callchains.
void write_demo_file(const std::string& path, bool pipe) {
  const std::string demo = workload("demo");
  auto syms = symbols_of(demo);
  ASSERT_TRUE(syms.count("hot_leaf") && syms.count("work") && syms.count("run") && syms.count("main"));
  const uint64_t base = 0x555555554000;
  const uint32_t pid = 31337;

  perf_event_attr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.size = sizeof attr;
  attr.sample_freq = 4000;
  attr.freq = 1;
  attr.sample_type =
      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD;
  attr.read_format = PERF_FORMAT_ID;
  attr.disabled = attr.inherit = attr.mmap = attr.comm = attr.task = attr.enable_on_exec = 1;
  attr.sample_id_all = attr.exclude_guest = attr.mmap2 = attr.comm_exec = 1;
  std::vector<AttrWithIds> attrs{{attr, {1001, 1002}}};

  FeatureSet features;
  fill_machine_features(gather_machine_facts(), features);
  features.version = "6.1.sonde";
  features.cmdline = std::vector<std::string>{"/usr/bin/sonde", "record", "-g", "--", demo};
  features.event_desc = std::vector<EventDesc>{{attr, "cpu-clock", {1001, 1002}}};
  features.build_ids = std::vector<BuildIdEntry>{{-1, PERF_RECORD_MISC_USER, build_id_of(demo), demo}};
  const uint64_t t0 = 1'000'000'000;
  features.sample_time = SampleTime{t0 + 1'000'000, t0 + 8'000'000};

  auto writer =
      pipe ? PerfDataWriter::to_pipe(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600))
           : PerfDataWriter::create(path);
  ASSERT_TRUE(writer) << writer.error().message;
  ASSERT_TRUE(writer->write_attrs(attrs));
  if (pipe) {
    ASSERT_TRUE(writer->write_pipe_features(features));
  }
  std::string data;
  // The kernel map as perf synthesizes it, so perf does not warn that kernel maps were restricted.
  const uint64_t kernel_text = 0xffffffff81000000;
  data += make_mmap(attr, UINT32_MAX, 0, kernel_text, 0x1000000, kernel_text, "[kernel.kallsyms]_text",
                    PERF_RECORD_MISC_KERNEL, {UINT32_MAX, 0, 0});
  data += make_comm(attr, pid, pid, "demo", true, {pid, pid, t0});
  SyntheticMmap2 text{pid, pid, base + 0x1000,         0x1000,      0x1000, 0, 0,
                      0,   0,   PROT_READ | PROT_EXEC, MAP_PRIVATE, demo};
  data += make_mmap2(attr, text, {pid, pid, t0 + 1});
  for (uint64_t i = 0; i < 8; ++i) {
    uint64_t chain[] = {PERF_CONTEXT_USER, base + syms["hot_leaf"] + 0x10, base + syms["work"] + 0x20,
                        base + syms["run"] + 0x30, base + syms["main"] + 0x10};
    SyntheticSample s;
    s.ip = chain[1];
    s.pid = s.tid = pid;
    s.time = t0 + (i + 1) * 1'000'000;
    s.period = 250000;
    s.callchain = chain;
    auto bytes = make_sample(attr, s);
    ASSERT_TRUE(bytes);
    data += *bytes;
  }
  data += make_finished_round();
  ASSERT_TRUE(writer->append(data.data(), data.size()));
  ASSERT_TRUE(writer->finalize(features));
}

}  // namespace

TEST(PerfDataInterop, PerfReportsAndScriptsOurFileWithoutAWord) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  std::string file = temp_dir() + "/ours.data";
  write_demo_file(file, false);
  if (HasFatalFailure()) return;

  auto header = run("perf report --header-only -i " + shell_quote(file));
  EXPECT_EQ(header.exit_code, 0) << header.err;
  EXPECT_EQ(header.err, "");
  for (const char* line :
       {"# hostname : ", "# os release : ", "# perf version : 6.1.sonde",
        "# arch : ", "# nrcpus online : ", "# nrcpus avail : ", "# cpudesc : ", "# cpuid : ",
        "# total memory : ", "# cmdline : /usr/bin/sonde record -g", "# event : name = cpu-clock",
        "id = { 1001, 1002 }", "# CPU_TOPOLOGY info available", "# time of first sample : 1.001000"})
    EXPECT_NE(header.out.find(line), std::string::npos) << line << "\n" << header.out;

  auto report = run("perf report --stdio -i " + shell_quote(file));
  EXPECT_EQ(report.exit_code, 0);
  EXPECT_EQ(report.err, "");
  EXPECT_NE(report.out.find("of event 'cpu-clock'"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("hot_leaf"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("# Samples: 8"), std::string::npos) << report.out;

  auto script = run("perf script -i " + shell_quote(file));
  EXPECT_EQ(script.exit_code, 0);
  EXPECT_EQ(script.err, "");
  auto script_lines = lines(script.out);
  int sample_lines = 0;
  for (const auto& line : script_lines) sample_lines += line.find("cpu-clock:") != std::string::npos;
  EXPECT_EQ(sample_lines, 8) << script.out;
  // The whole chain, innermost first, resolved through our MMAP2 and COMM.
  std::string first_stack = script.out.substr(0, script.out.find("\n\n"));
  std::vector<std::string> frames = {"hot_leaf", "work", "run", "main"};
  size_t at = 0;
  for (const auto& frame : frames) {
    at = first_stack.find(frame, at);
    EXPECT_NE(at, std::string::npos) << frame << " in\n" << first_stack;
  }
  EXPECT_EQ(first_stack.rfind("demo 31337", 0), 0u) << first_stack;

  auto dump = run("perf script -D -i " + shell_quote(file));
  EXPECT_EQ(dump.exit_code, 0);
  EXPECT_EQ(perf_dump_samples(dump.out).size(), 8u);
}

TEST(PerfDataInterop, PerfReadsOurPipeModeStream) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  std::string file = temp_dir() + "/ours.pipe";
  write_demo_file(file, true);
  if (HasFatalFailure()) return;
  auto report = run("perf report --stdio -i - < " + shell_quote(file));
  EXPECT_EQ(report.exit_code, 0);
  EXPECT_EQ(report.err, "");
  EXPECT_NE(report.out.find("hot_leaf"), std::string::npos) << report.out;
  auto script = run("perf script -i - < " + shell_quote(file));
  EXPECT_EQ(script.exit_code, 0);
  EXPECT_EQ(script.err, "");
  EXPECT_NE(script.out.find("hot_leaf"), std::string::npos) << script.out;

  // And sonde reads it back.
  auto reader = PerfDataReader::open(file);
  ASSERT_TRUE(reader) << reader.error().message;
  auto ours = read_with_sonde(*reader);
  EXPECT_EQ(ours.error, "");
  EXPECT_EQ(ours.per_event["cpu-clock"], 8);
}

namespace {

// Copies a perf file through sonde: reader -> writer, records byte for byte, features as decoded
// (plus the tracing data blob). What perf then prints must not change.
void rewrite_through_sonde(const std::string& in, const std::string& out) {
  auto reader = PerfDataReader::open(in);
  ASSERT_TRUE(reader) << reader.error().message;
  std::vector<AttrWithIds> attrs;
  for (const auto& event : reader->attrs().events()) attrs.push_back({event.attr, event.ids});
  auto writer = PerfDataWriter::create(out);
  ASSERT_TRUE(writer) << writer.error().message;
  ASSERT_TRUE(writer->write_attrs(attrs));
  for (RecordView r : reader->records()) ASSERT_TRUE(writer->append(r.bytes.data(), r.bytes.size()));
  ASSERT_FALSE(reader->error());
  FeatureSet features = reader->features();
  features.compressed.reset();  // the records are written decompressed
  if (auto blob = reader->tracing_data(); !blob.empty())
    features.tracing_data = std::string(reinterpret_cast<const char*>(blob.data()), blob.size());
  ASSERT_TRUE(writer->finalize(features));
}

}  // namespace

TEST(PerfDataInterop, PerfScriptPrintsTheSameAfterARewriteBySonde) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  struct Case {
    const char* name;
    std::string args;
  };
  for (const auto& c :
       {Case{"sched", "-e sched:sched_switch -a -- sleep 0.1"},
        Case{"clock", "-z -e cpu-clock -g -- " + workload("demo") + " 300000 4 >/dev/null"}}) {
    SCOPED_TRACE(c.name);
    std::string original = temp_dir() + "/orig-" + c.name + ".data";
    std::string copy = temp_dir() + "/copy-" + c.name + ".data";
    auto rec = run("perf record -o " + shell_quote(original) + " " + c.args);
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    rewrite_through_sonde(original, copy);
    if (HasFatalFailure()) return;
    auto theirs = run("perf script -i " + shell_quote(original));
    auto ours = run("perf script -i " + shell_quote(copy));
    EXPECT_EQ(ours.exit_code, 0);
    EXPECT_EQ(ours.err, "");
    EXPECT_GT(lines(theirs.out).size(), 1u);
    EXPECT_EQ(ours.out, theirs.out);
  }
}

// A BPF output event's samples (what bpf_perf_event_output writes): perf script dumps their data
// in hex and as characters, then as a string when it is one; sonde script prints the same bytes.
TEST(PerfDataInterop, BpfOutputDataScriptsAsPerfDumpsIt) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  std::string file = temp_dir() + "/bpf-output.data";
  perf_event_attr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_BPF_OUTPUT;
  attr.size = sizeof attr;
  attr.sample_period = 1;
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                     PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
  attr.read_format = PERF_FORMAT_ID;
  attr.sample_id_all = 1;
  FeatureSet features;
  fill_machine_features(gather_machine_facts(), features);
  features.event_desc = std::vector<EventDesc>{{attr, "bpf-output", {7}}};
  auto writer = PerfDataWriter::create(file);
  ASSERT_TRUE(writer) << writer.error().message;
  std::vector<AttrWithIds> attrs{{attr, {7}}};
  ASSERT_TRUE(writer->write_attrs(attrs));
  const std::string payloads[] = {std::string("hello sonde\0\0\0\0\0", 16),
                                  std::string("\x01\x02\x41\xff\x00\x7e\x20\x0a\x10\x11\x12\x13\x14", 13),
                                  std::string("a\0b", 3), std::string()};
  std::string data;
  uint64_t time = 1'000'000'000;
  for (const auto& payload : payloads) {
    SyntheticSample s;
    s.pid = s.tid = 4242;
    s.time = time += 1000;
    s.period = 1;
    s.raw = payload;
    auto bytes = make_sample(attr, s);
    ASSERT_TRUE(bytes);
    data += *bytes;
  }
  data += make_finished_round();
  ASSERT_TRUE(writer->append(data.data(), data.size()));
  ASSERT_TRUE(writer->finalize(features));

  auto theirs = run("perf script -i " + shell_quote(file));
  ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
  EXPECT_NE(theirs.out.find("BPF output:"), std::string::npos) << theirs.out;
  EXPECT_NE(theirs.out.find("BPF string:"), std::string::npos) << theirs.out;
  auto ours = run(sonde_bin() + " script -i " + shell_quote(file));
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(ours.out, theirs.out);
}
