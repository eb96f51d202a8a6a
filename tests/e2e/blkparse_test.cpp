// sonde blk parse against blkparse (Debian's blktrace package) on blktrace files the test writes
// with sonde's writer, holding what a loop device never produces: merges, requeues, remaps,
// splits and their completions, timer unplugs, SCSI pass-through requests with their command
// bytes, messages, driver data, an action blkparse does not know, a pid no note names, equal
// timestamps on two CPUs, a file in the other byte order. The text must be the same byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "format/blktrace_file.hpp"
#include "run.hpp"

namespace sonde::test {
namespace {

using format::blk_category;
using format::BlkTrace;

constexpr uint32_t kDevice = (8u << 20) | 16;  // 8,16

std::string big_endian(uint64_t value, size_t size) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[size - 1 - i] = static_cast<char>(value >> (8 * i));
  return bytes;
}

BlkTrace io(uint64_t time, uint32_t cpu, uint32_t pid, uint32_t action, uint32_t categories, uint64_t sector,
            uint32_t bytes) {
  BlkTrace trace;
  trace.time = time;
  trace.cpu = cpu;
  trace.pid = pid;
  trace.action = action | blk_category(categories);
  trace.sector = sector;
  trace.bytes = bytes;
  trace.device = kDevice;
  return trace;
}

BlkTrace note(uint64_t time, uint32_t cpu, uint32_t pid, const std::string& comm) {
  BlkTrace trace = io(time, cpu, pid, format::kBlkNoteProcess, format::kBlkNotify, 0, 0);
  trace.pdu = comm;
  trace.pdu.resize(16, '\0');
  return trace;
}

// A file of traces, numbered per file from 1 (notes keep 0), in native or swapped byte order.
void write_file(const std::string& path, std::vector<BlkTrace> traces, bool swapped = false) {
  std::string bytes;
  uint32_t sequence = 0;
  for (BlkTrace& trace : traces) {
    if (!trace.is_note()) trace.sequence = ++sequence;
    std::string one;
    format::append_blk_trace(trace, one);
    if (swapped) {
      auto swap_at = [&](size_t at, size_t size) { std::reverse(one.begin() + at, one.begin() + at + size); };
      for (size_t at : {0, 4, 24, 28, 32, 36, 40}) swap_at(at, 4);
      for (size_t at : {8, 16}) swap_at(at, 8);
      for (size_t at : {44, 46}) swap_at(at, 2);
    }
    bytes += one;
  }
  std::ofstream(path, std::ios::binary) << bytes;
}

std::vector<BlkTrace> cpu0_traces() {
  uint32_t w = format::kBlkWrite, s = format::kBlkSync;
  std::vector<BlkTrace> t;
  t.push_back(note(1000, 0, 100, "writer"));
  t.push_back(io(1000, 0, 100, format::kBlkQueueAction, w | s | format::kBlkQueue, 2048, 4096));
  t.push_back(io(1500, 0, 100, format::kBlkBackMerge, w | format::kBlkQueue, 2056, 4096));
  t.push_back(io(1600, 0, 100, format::kBlkFrontMerge, w | format::kBlkQueue, 2040, 4096));
  t.push_back(io(1700, 0, 100, format::kBlkGetRequest, w | format::kBlkQueue, 2048, 8192));
  t.push_back(io(1800, 0, 100, format::kBlkSleepRequest, w | format::kBlkQueue, 2048, 0));
  t.push_back(io(1900, 0, 100, format::kBlkInsert, w | format::kBlkQueue, 2040, 12288));
  BlkTrace plug = io(2000, 0, 100, format::kBlkPlug, format::kBlkQueue, 0, 0);
  t.push_back(plug);
  BlkTrace unplug = io(2100, 0, 100, format::kBlkUnplugTimer, format::kBlkQueue, 0, 0);
  unplug.pdu = big_endian(3, 8);
  t.push_back(unplug);
  t.push_back(io(2200, 0, 100, format::kBlkIssueAction, w | format::kBlkIssue, 2040, 12288));
  t.push_back(io(2300, 0, 100, format::kBlkRequeueAction, w | format::kBlkRequeue, 2040, 12288));
  t.push_back(
      io(2400, 0, 100, format::kBlkIssueAction, w | format::kBlkIssue | format::kBlkFua, 2040, 12288));
  // A read split in two, completed as its second half: blkparse prints the whole request.
  t.push_back(note(2500, 0, 200, "reader"));
  t.push_back(io(2500, 0, 200, format::kBlkQueueAction,
                 format::kBlkRead | format::kBlkQueue | format::kBlkAhead, 5000, 8192));
  BlkTrace split = io(2600, 0, 200, format::kBlkSplit, format::kBlkRead | format::kBlkQueue, 5000, 4096);
  split.pdu = big_endian(5008, 8);
  t.push_back(split);
  BlkTrace remap = io(2700, 0, 200, format::kBlkRemap, format::kBlkRead | format::kBlkQueue, 9000, 4096);
  remap.pdu = big_endian((8u << 20) | 17, 4) + big_endian(kDevice, 4) + big_endian(5008, 8);
  t.push_back(remap);
  t.push_back(io(2800, 0, 200, format::kBlkBounce, format::kBlkRead | format::kBlkQueue, 5000, 4096));
  t.push_back(
      io(2900, 0, 300, format::kBlkQueueAction, format::kBlkRead | format::kBlkQueue, 7000, 512));  // no note
  t.push_back(io(3000, 0, 200, format::kBlkAbort, format::kBlkRead | format::kBlkQueue, 5000, 4096));
  t.push_back(io(3100, 0, 200, format::kBlkDriverDataAction, format::kBlkDriverData, 0, 0));
  // Messages print with pid 0; one with a cgroup id is read past (blkparse 1.2).
  BlkTrace message = io(3200, 0, 55, format::kBlkNoteMessage, format::kBlkNotify, 0, 0);
  message.pdu = "bfq0 insert";
  t.push_back(message);
  BlkTrace cgroup_message =
      io(3250, 0, 56, format::kBlkNoteMessage | format::kBlkCgroupFlag, format::kBlkNotify, 0, 0);
  cgroup_message.pdu = std::string("\x01\0\0\0\0\0\0\0", 8) + "bfq1 dispatch";
  t.push_back(cgroup_message);
  // SCSI pass-through: queued, issued and completed with their command bytes, one requeued.
  uint32_t pc = format::kBlkPc;
  t.push_back(io(3300, 0, 100, format::kBlkQueueAction, pc | format::kBlkQueue, 0, 512));
  BlkTrace issue = io(3400, 0, 100, format::kBlkIssueAction, pc | format::kBlkIssue, 0, 512);
  issue.pdu = std::string("\x12\x00\x00\x00\x24\x00\x00\x00", 8);
  t.push_back(issue);
  t.push_back(io(3450, 0, 100, format::kBlkRequeueAction, pc | format::kBlkRequeue, 0, 512));
  BlkTrace done = io(3500, 0, 100, format::kBlkCompleteAction, pc | format::kBlkComplete, 0, 512);
  done.pdu = std::string("\x12\x01\x00", 3);
  t.push_back(done);
  return t;
}

std::vector<BlkTrace> cpu1_traces() {
  uint32_t w = format::kBlkWrite;
  std::vector<BlkTrace> t;
  t.push_back(note(1000, 1, 0, "swapper/1"));
  t.push_back(
      io(1000, 1, 0, format::kBlkUnplugIo, format::kBlkQueue, 0, 0));  // the same time as CPU 0's first
  t.back().pdu = big_endian(1, 8);
  t.push_back(io(2450, 1, 0, format::kBlkCompleteAction, w | format::kBlkComplete, 2040, 12288));
  BlkTrace failed =
      io(2460, 1, 0, format::kBlkCompleteAction, format::kBlkRead | format::kBlkComplete, 6000, 0);
  failed.error = 5;
  t.push_back(failed);
  t.push_back(io(2900000000ull, 1, 0, format::kBlkCompleteAction, format::kBlkRead | format::kBlkComplete,
                 5008, 4096));
  return t;
}

void expect_same_as_blkparse(const std::string& arguments) {
  auto theirs = run("blkparse " + arguments);
  ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
  auto ours = run(sonde_bin() + " blk parse " + arguments);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_GT(lines(theirs.out).size(), 20u) << theirs.out;
  EXPECT_EQ(ours.out, theirs.out);
}

TEST(Blkparse, EveryActionPrintsAsBlkparsePrintsIt) {
  std::string name = temp_dir() + "/every";
  write_file(name + ".blktrace.0", cpu0_traces());
  write_file(name + ".blktrace.1", cpu1_traces());
  expect_same_as_blkparse("-i " + name);
  expect_same_as_blkparse("-q -i " + name);
  // A CPU's file may be empty (blktrace writes one per CPU): it is skipped, the next one read.
  write_file(name + "gap.blktrace.0", cpu0_traces());
  write_file(name + "gap.blktrace.1", {});
  std::vector<BlkTrace> moved = cpu1_traces();
  for (BlkTrace& trace : moved) trace.cpu = 2;
  write_file(name + "gap.blktrace.2", moved);
  expect_same_as_blkparse("-i " + name + "gap");
}

TEST(Blkparse, TheOtherByteOrderReadsTheSame) {
  std::string native = temp_dir() + "/native", swapped = temp_dir() + "/swapped";
  write_file(native + ".blktrace.0", cpu0_traces());
  write_file(swapped + ".blktrace.0", cpu0_traces(), true);
  auto ours_native = run(sonde_bin() + " blk parse -q -i " + native);
  auto ours_swapped = run(sonde_bin() + " blk parse -q -i " + swapped);
  ASSERT_EQ(ours_swapped.exit_code, 0) << ours_swapped.err;
  EXPECT_EQ(ours_swapped.out.substr(0, ours_swapped.out.find("Input file")),
            ours_native.out.substr(0, ours_native.out.find("Input file")));
}

TEST(Blkparse, TwoInputsHaveASummaryEach) {
  std::string first = temp_dir() + "/first", second = temp_dir() + "/second";
  write_file(first + ".blktrace.0", cpu0_traces());
  write_file(second + ".blktrace.0", cpu1_traces());
  expect_same_as_blkparse("-i " + first + " -i " + second);
}

TEST(Blkparse, ACorruptFileIsAOneLineError) {
  std::string name = temp_dir() + "/corrupt";
  std::ofstream(name + ".blktrace.0", std::ios::binary) << std::string(60, 'x');
  auto ours = run(sonde_bin() + " blk parse -i " + name);
  EXPECT_EQ(ours.exit_code, 1);
  EXPECT_EQ(lines(ours.err).size(), 1u) << ours.err;
  EXPECT_NE(ours.err.find("not a blktrace file"), std::string::npos) << ours.err;
  std::string cut = temp_dir() + "/cut";
  std::string bytes;
  format::append_blk_trace(io(1, 0, 1, format::kBlkQueueAction, format::kBlkQueue, 0, 512), bytes);
  // A recording cut off inside a trace keeps the traces before it, with a warning.
  write_file(cut + "whole.blktrace.0", cpu0_traces());
  std::ifstream whole(cut + "whole.blktrace.0", std::ios::binary);
  std::string content((std::istreambuf_iterator<char>(whole)), std::istreambuf_iterator<char>());
  std::ofstream(cut + ".blktrace.0", std::ios::binary) << content << bytes.substr(0, 40);
  ours = run(sonde_bin() + " blk parse -q -i " + cut);
  EXPECT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_NE(ours.err.find("cut short"), std::string::npos) << ours.err;
  auto theirs = run("blkparse -q -i " + cut);
  EXPECT_EQ(ours.out, theirs.out);
}

}  // namespace
}  // namespace sonde::test
