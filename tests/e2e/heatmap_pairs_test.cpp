// sonde heatmap on perf.data event pairs, as a user runs it: a workload that sleeps a known
// number of times for a known duration, recorded with the syscall tracepoints (by sonde and by
// perf), gives exactly that many pairs in that latency row; O_DIRECT writes to a loop device
// the test sets up give one block_rq_issue -> block_rq_complete pair per write, with the
// latencies perf script's timestamps give; bad requests are one-line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "../unit/flamegraph_svg_check.hpp"
#include "base/strings.hpp"
#include "run.hpp"

namespace sonde::test {
namespace {

constexpr int kSleeps = 20;
constexpr int kSleepMs = 10;

struct Pair {
  double time = 0, latency = 0;
};

// `sonde heatmap --dump` output: a header line, then "time latency" lines.
std::vector<Pair> dumped_pairs(const std::string& text) {
  std::vector<Pair> pairs;
  auto all = lines(text);
  EXPECT_FALSE(all.empty());
  if (all.empty()) return pairs;
  EXPECT_TRUE(all[0].starts_with("TIME(s) LATENCY(")) << all[0];
  for (size_t i = 1; i < all.size(); ++i) {
    std::istringstream in(all[i]);
    Pair pair;
    EXPECT_TRUE(in >> pair.time >> pair.latency) << all[i];
    pairs.push_back(pair);
  }
  return pairs;
}

// Counts of the heat map's boxes by their latency range ("10000-20000us").
std::map<std::string, uint64_t> counts_by_row(const std::string& svg) {
  auto doc = parse_xml(svg);
  EXPECT_EQ(doc.error, "");
  std::map<std::string, uint64_t> rows;
  for (const auto& element : doc.elements) {
    auto data = element.attributes.find("data-h");
    if (data == element.attributes.end()) continue;
    auto fields = split(data->second, '|');
    if (fields.size() < 3) {
      ADD_FAILURE() << data->second;
      continue;
    }
    rows[fields[1]] += std::stoull(fields[2]);
  }
  return rows;
}

std::string record_sleeps(const std::string& recorder, const std::string& events, const std::string& name) {
  std::string data = temp_dir() + "/" + name + ".data";
  auto recorded = run(recorder + " " + events + " -o " + data + " -- " + workload("sleeps") + " " +
                      std::to_string(kSleeps) + " " + std::to_string(kSleepMs));
  EXPECT_EQ(recorded.exit_code, 0) << recorded.err;
  return data;
}

const char* const kRawSyscalls = "-e raw_syscalls:sys_enter -e raw_syscalls:sys_exit";

// The sleeps thread's pairs: every sleep once, at least the asked duration and less than twice
// it; its other system calls all far shorter.
void expect_sleeps_paired(const std::string& data, const std::string& thread_option) {
  auto dumped = run(sonde_bin() + " heatmap --dump " + thread_option + " " + data);
  ASSERT_EQ(dumped.exit_code, 0) << dumped.err;
  int sleeps = 0;
  for (const Pair& pair : dumped_pairs(dumped.out)) {
    if (pair.latency < kSleepMs * 1000.0) continue;
    ++sleeps;
    EXPECT_LT(pair.latency, 2 * kSleepMs * 1000.0) << dumped.out;
  }
  EXPECT_EQ(sleeps, kSleeps) << dumped.out;

  // The picture: rows of 10 ms, the sleeps all in the second.
  auto drawn =
      run(sonde_bin() + " heatmap " + thread_option + " --minlat 0 --maxlat 40000 --steplat 10000 " + data);
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  auto rows = counts_by_row(drawn.out);
  EXPECT_EQ(rows["10000-20000us"], static_cast<uint64_t>(kSleeps)) << drawn.out;
  uint64_t total = 0;
  for (const auto& [range, count] : rows) total += count;
  EXPECT_EQ(total, dumped_pairs(dumped.out).size());
}

TEST(HeatmapPairs, RawSyscallsOfASleepingThreadRecordedBySonde) {
  std::string data = record_sleeps(sonde_bin() + " record -q", kRawSyscalls, "raw_sonde");
  expect_sleeps_paired(data, "--comm sleeps");
  // The same pairs named explicitly, keyed by the thread.
  auto named =
      run(sonde_bin() +
          " heatmap --dump --comm sleeps --start raw_syscalls:sys_enter --end sys_exit --key tid " + data);
  auto recognised = run(sonde_bin() + " heatmap --dump --comm sleeps " + data);
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(named.out, recognised.out);
  // Milliseconds: the same latencies, scaled.
  auto in_ms = run(sonde_bin() + " heatmap --dump --unitslat ms --comm sleeps " + data);
  ASSERT_EQ(in_ms.exit_code, 0) << in_ms.err;
  auto us = dumped_pairs(recognised.out), ms = dumped_pairs(in_ms.out);
  ASSERT_EQ(us.size(), ms.size());
  for (size_t i = 0; i < us.size(); ++i) EXPECT_NEAR(us[i].latency / 1000, ms[i].latency, 1e-6);
  // Another thread's filter leaves nothing to draw.
  auto none = run(sonde_bin() + " heatmap --tid 1 " + data);
  EXPECT_NE(none.exit_code, 0);
  EXPECT_EQ(lines(none.err).size(), 1u) << none.err;
}

TEST(HeatmapPairs, RawSyscallsRecordedByPerf) {
  if (!have_perf()) GTEST_SKIP() << "perf is not installed";
  std::string data = record_sleeps("perf record -q", kRawSyscalls, "raw_perf");
  expect_sleeps_paired(data, "--comm sleeps");
}

TEST(HeatmapPairs, PerSyscallTracepointsPairByName) {
  std::string data =
      record_sleeps(sonde_bin() + " record -q",
                    "-e syscalls:sys_enter_clock_nanosleep -e syscalls:sys_exit_clock_nanosleep", "sc");
  expect_sleeps_paired(data, "");
  auto dumped = run(sonde_bin() + " heatmap --dump " + data);
  EXPECT_EQ(dumped_pairs(dumped.out).size(), static_cast<size_t>(kSleeps)) << dumped.out;
}

TEST(HeatmapPairs, BlockRequestsOnALoopDevice) {
  std::string image = temp_dir() + "/disk.img";
  ASSERT_EQ(run("truncate -s 4M " + image).exit_code, 0);
  auto attached = run("losetup -f --show " + image);
  if (attached.exit_code != 0) GTEST_SKIP() << "cannot set up a loop device: " << attached.err;
  std::string device(trim(attached.out));
  auto stat = run("stat -c '%t %T' " + device);  // major and minor in hex
  auto numbers = split(std::string(trim(stat.out)), ' ');
  unsigned long dev = numbers.size() == 2
                          ? (std::stoul(numbers[0], nullptr, 16) << 20) | std::stoul(numbers[1], nullptr, 16)
                          : 0;
  std::string filter = " --filter 'dev == " + std::to_string(dev) + "'";
  std::string data = temp_dir() + "/blk.data";
  constexpr int kWrites = 8;
  auto recorded =
      run(sonde_bin() + " record -q -a -e block:block_rq_issue" + filter + " -e block:block_rq_complete" +
          filter + " -o " + data + " -- dd if=/dev/zero of=" + device +
          " bs=4k count=" + std::to_string(kWrites) + " oflag=direct");
  run("losetup -d " + device);
  ASSERT_EQ(numbers.size(), 2u) << stat.out;
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;

  auto dumped = run(sonde_bin() + " heatmap --dump --unitslat ns " + data);
  ASSERT_EQ(dumped.exit_code, 0) << dumped.err;
  auto pairs = dumped_pairs(dumped.out);
  ASSERT_EQ(pairs.size(), static_cast<size_t>(kWrites)) << dumped.out;
  // Naming the events and the key gives the same pairs.
  auto named = run(sonde_bin() +
                   " heatmap --dump --unitslat ns --start block:block_rq_issue --end block:block_rq_complete "
                   "--key dev,sector " +
                   data);
  EXPECT_EQ(named.out, dumped.out) << named.err;
  auto drawn = run(sonde_bin() + " heatmap " + data);
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  uint64_t total = 0;
  for (const auto& [range, count] : counts_by_row(drawn.out)) total += count;
  EXPECT_EQ(total, static_cast<uint64_t>(kWrites));

  // The oracle: perf script's nanosecond times of each sector's issue and completion.
  if (!have_perf()) return;
  auto script = run("perf script --ns -F time,event,trace -i " + data + " 2>/dev/null");
  ASSERT_EQ(script.exit_code, 0) << script.err;
  std::map<std::string, uint64_t> issued;
  std::vector<uint64_t> expected;
  for (const auto& line : lines(script.out)) {
    std::vector<std::string> fields;
    std::istringstream words(line);
    for (std::string word; words >> word;) fields.push_back(word);
    auto plus = std::find(fields.begin(), fields.end(), "+");
    if (fields.size() < 3 || plus == fields.begin() || plus == fields.end()) continue;
    std::string time = fields[0].substr(0, fields[0].size() - 1);  // "SECONDS.NANOS:"
    uint64_t ns = std::stoull(time.substr(0, time.find('.'))) * 1000000000ull +
                  std::stoull(time.substr(time.find('.') + 1));
    std::string sector = *(plus - 1);
    if (fields[1] == "block:block_rq_issue:")
      issued[sector] = ns;
    else if (fields[1] == "block:block_rq_complete:" && issued.count(sector))
      expected.push_back(ns - issued[sector]);
  }
  ASSERT_EQ(expected.size(), pairs.size()) << script.out;
  for (size_t i = 0; i < pairs.size(); ++i)
    EXPECT_EQ(static_cast<uint64_t>(pairs[i].latency), expected[i]) << dumped.out;
}

TEST(HeatmapPairs, BadRequestsAreOneLineErrors) {
  std::string enters = temp_dir() + "/enters.data";
  ASSERT_EQ(run(sonde_bin() + " record -q -e raw_syscalls:sys_enter -o " + enters + " -- true").exit_code, 0);
  std::string raw = record_sleeps(sonde_bin() + " record -q", kRawSyscalls, "bad_raw");
  struct Case {
    std::string args;
    std::string expected;
  };
  const Case cases[] = {
      {enters, "holds no event pair sonde recognises"},
      {"--start raw_syscalls:sys_enter --end no:such " + raw,
       "has no event 'no:such' (its tracepoints: raw_syscalls:sys_enter, raw_syscalls:sys_exit)"},
      {"--start raw_syscalls:sys_enter --end raw_syscalls:sys_exit --key nosuch " + raw,
       "raw_syscalls:sys_enter has no field 'nosuch' (its fields: id, args;"},
      {"--start raw_syscalls:sys_enter " + raw, "give both"},
      {"--key id " + raw, "--key names fields of the --start and --end events"},
      {"--start raw_syscalls:sys_enter --end raw_syscalls:sys_exit --key id --end-key id,ret " + raw,
       "--key has 1 fields and --end-key 2"},
      {"--unitslat weeks " + raw, "--unitslat 'weeks'"},
      {"--pid abc " + raw, "--pid takes numbers"},
      {"--dump --offsets " + raw, "pick event pairs of a perf.data file"},
  };
  for (const auto& c : cases) {
    auto result = run(sonde_bin() + " heatmap " + c.args);
    EXPECT_NE(result.exit_code, 0) << c.args;
    EXPECT_EQ(lines(result.err).size(), 1u) << c.args << ": " << result.err;
    EXPECT_NE(result.err.find(c.expected), std::string::npos) << c.args << ": " << result.err;
  }
}

}  // namespace
}  // namespace sonde::test
