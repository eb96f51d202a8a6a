#include "output/blk/blkparse_text.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

namespace sonde::output {

using analysis::BlkAmount;
using analysis::BlkIoStats;
using analysis::BlkParsedTrace;
using format::BlkTrace;

namespace {

// The payloads blkparse reads as big-endian numbers (an unplug's depth, a split's sector, a
// remap's devices and sector); 0 when the payload is too short.
uint64_t big_endian(std::string_view bytes, size_t at, size_t size) {
  if (bytes.size() < at + size) return 0;
  uint64_t value = 0;
  for (size_t i = 0; i < size; ++i) value = value << 8 | static_cast<uint8_t>(bytes[at + i]);
  return value;
}

// At most "FWFASM": a flag column without an allocation.
struct RwbsText {
  char text[8] = {};
  size_t size = 0;
  RwbsText& operator+=(char c) {
    text[size++] = c;
    return *this;
  }
  std::string_view view() const { return {text, size}; }
};

// R, W, D or N, with F for a flush before and F (FUA), A, S, M after, as blkparse spells them.
RwbsText rwbs(const BlkTrace& trace) {
  auto has = [&](uint32_t category) { return (trace.action & format::blk_category(category)) != 0; };
  RwbsText text;
  if (has(format::kBlkFlush)) text += 'F';
  if (has(format::kBlkDiscard))
    text += 'D';
  else if (has(format::kBlkWrite))
    text += 'W';
  else if (trace.bytes)
    text += 'R';
  else
    text += 'N';
  if (has(format::kBlkFua)) text += 'F';
  if (has(format::kBlkAhead)) text += 'A';
  if (has(format::kBlkSync)) text += 'S';
  if (has(format::kBlkMeta)) text += 'M';
  return text;
}

// A pass-through command's bytes in hex, cut at the first zero byte after which all are zero.
std::string hex_dump(std::string_view pdu) {
  std::string text;
  for (size_t i = 0; i < pdu.size(); ++i) {
    if (i) text += ' ';
    text += fmt::format("{:02x}", static_cast<uint8_t>(pdu[i]));
    if (pdu[i] == '\0' && pdu.find_first_not_of('\0', i) == std::string_view::npos) {
      text += " ..";
      break;
    }
  }
  return text;
}

const char* fs_action_letters(uint32_t action) {
  switch (action) {
    case format::kBlkQueueAction:
      return "Q";
    case format::kBlkInsert:
      return "I";
    case format::kBlkIssueAction:
      return "D";
    case format::kBlkBounce:
      return "B";
    case format::kBlkBackMerge:
      return "M";
    case format::kBlkFrontMerge:
      return "F";
    case format::kBlkGetRequest:
      return "G";
    case format::kBlkSleepRequest:
      return "S";
    case format::kBlkRequeueAction:
      return "R";
    case format::kBlkCompleteAction:
      return "C";
    case format::kBlkPlug:
      return "P";
    case format::kBlkUnplugIo:
      return "U";
    case format::kBlkUnplugTimer:
      return "UT";
    case format::kBlkSplit:
      return "X";
    case format::kBlkRemap:
      return "A";
    default:
      return nullptr;
  }
}

// A pass-through request's actions blkparse knows (they print with the same letters).
const char* pc_action_letters(uint32_t action) {
  switch (action) {
    case format::kBlkQueueAction:
    case format::kBlkGetRequest:
    case format::kBlkSleepRequest:
    case format::kBlkRequeueAction:
    case format::kBlkIssueAction:
    case format::kBlkInsert:
    case format::kBlkCompleteAction:
      return fs_action_letters(action);
    default:
      return nullptr;
  }
}

void append_header(fmt::memory_buffer& out, uint32_t device, const BlkParsedTrace& parsed,
                   std::string_view act, std::string_view flags) {
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:3},{:<3} {:2} {:8} {:5}.{:09} {:5} {:>2} {:>3} "),
                 format::blk_major(device), format::blk_minor(device), parsed.cpu,
                 static_cast<int32_t>(parsed.trace.sequence), parsed.time / 1000000000,
                 parsed.time % 1000000000, parsed.trace.pid, act, flags);
}

}  // namespace

void append_blkparse_line(const BlkParsedTrace& parsed, fmt::memory_buffer& out, std::string& warning) {
  const BlkTrace& trace = parsed.trace;
  // blkparse prints an unknown pid's name through printf's "%s" of a null pointer.
  std::string_view name = parsed.name ? *parsed.name : std::string_view("(null)");
  uint32_t action = trace.action_number();
  uint32_t sectors = trace.bytes >> 9;
  if (trace.is_note()) {
    // A message, printed by blkparse 1.2 with pid 0 and no sequence number.
    if (trace.pdu.empty()) return;
    std::string_view text = trace.pdu;
    text = text.substr(0, text.find('\0'));
    fmt::format_to(std::back_inserter(out),
                   FMT_COMPILE("{:3},{:<3} {:2} {:>8} {:5}.{:09} {:5} {:>2} {:>3} {}\n"),
                   format::blk_major(trace.device), format::blk_minor(trace.device), trace.cpu, "0",
                   parsed.time / 1000000000, parsed.time % 1000000000, 0, "m", "N", text);
    return;
  }
  RwbsText flag_text = rwbs(trace);
  std::string_view flags = flag_text.view();
  if (trace.action & format::blk_category(format::kBlkPc)) {
    const char* act = pc_action_letters(action);
    if (!act) {
      warning = fmt::format("Bad pc action {:x}", action);
      return;
    }
    append_header(out, trace.device, parsed, act, flags);
    auto hex = [&] { return trace.pdu.empty() ? std::string() : fmt::format("({}) ", hex_dump(trace.pdu)); };
    switch (action) {
      case format::kBlkQueueAction:
        fmt::format_to(std::back_inserter(out), FMT_COMPILE("{} [{}]\n"), trace.bytes, name);
        break;
      case format::kBlkIssueAction:
      case format::kBlkInsert:
        fmt::format_to(std::back_inserter(out), FMT_COMPILE("{} {}[{}]\n"), trace.bytes, hex(), name);
        break;
      case format::kBlkCompleteAction:
        fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}[{}]\n"), hex(), trace.error);
        break;
      case format::kBlkRequeueAction:
        fmt::format_to(std::back_inserter(out), FMT_COMPILE("[{}]\n"), trace.error);
        break;
      default:  // G, S
        if (sectors)
          fmt::format_to(std::back_inserter(out), FMT_COMPILE("{} + {} [{}]\n"), trace.sector, sectors, name);
        else
          fmt::format_to(std::back_inserter(out), FMT_COMPILE("[{}]\n"), name);
    }
    return;
  }
  if (action == format::kBlkDriverDataAction) return;  // kept for the binary output only
  const char* act = fs_action_letters(action);
  if (!act) {
    warning = fmt::format("Bad fs action {:x}", trace.action);
    return;
  }
  uint32_t device = trace.device;
  if (action == format::kBlkRemap) device = static_cast<uint32_t>(big_endian(trace.pdu, 4, 4));
  append_header(out, device, parsed, act, flags);
  switch (action) {
    case format::kBlkRequeueAction:
    case format::kBlkCompleteAction:
      if (sectors)
        fmt::format_to(std::back_inserter(out), FMT_COMPILE("{} + {} [{}]\n"), trace.sector, sectors,
                       trace.error);
      else
        fmt::format_to(std::back_inserter(out), FMT_COMPILE("{} [{}]\n"), trace.sector, trace.error);
      break;
    case format::kBlkPlug:
      fmt::format_to(std::back_inserter(out), FMT_COMPILE("[{}]\n"), name);
      break;
    case format::kBlkUnplugIo:
    case format::kBlkUnplugTimer:
      fmt::format_to(std::back_inserter(out), FMT_COMPILE("[{}] {}\n"), name,
                     static_cast<uint32_t>(big_endian(trace.pdu, 0, 8)));
      break;
    case format::kBlkSplit:
      fmt::format_to(std::back_inserter(out), FMT_COMPILE("{} / {} [{}]\n"), trace.sector,
                     static_cast<uint32_t>(big_endian(trace.pdu, 0, 8)), name);
      break;
    case format::kBlkRemap: {
      uint32_t from = static_cast<uint32_t>(big_endian(trace.pdu, 0, 4));
      fmt::format_to(std::back_inserter(out), FMT_COMPILE("{} + {} <- ({},{}) {}\n"), trace.sector, sectors,
                     format::blk_major(from), format::blk_minor(from), big_endian(trace.pdu, 8, 8));
      break;
    }
    default:
      if (sectors)
        fmt::format_to(std::back_inserter(out), FMT_COMPILE("{} + {} [{}]\n"), trace.sector, sectors, name);
      else
        fmt::format_to(std::back_inserter(out), FMT_COMPILE("[{}]\n"), name);
  }
}

namespace {

// blkparse's size_cnv: a count as it is, a size in KiB scaled to M, G or P above a million.
std::string scaled(uint64_t number, bool in_kib) {
  static constexpr char kSuffix[] = {'\0', 'K', 'M', 'G', 'P'};
  int unit = in_kib ? 1 : 0;
  while (number > 1000000 && unit < 4) {
    number /= 1000;
    ++unit;
  }
  std::string text = fmt::format("{:8}", number);
  if (kSuffix[unit]) text += kSuffix[unit];
  return text;
}

void append_pair(std::string& out, std::string_view read_label, const BlkAmount& read,
                 std::string_view write_label, const BlkAmount& write) {
  fmt::format_to(std::back_inserter(out), " {}{}, {}iB\t {}{}, {}iB\n", read_label, scaled(read.count, false),
                 scaled(read.shown_kib(), true), write_label, scaled(write.count, false),
                 scaled(write.shown_kib(), true));
}

void append_counts(std::string& out, std::string_view read_label, uint64_t read, std::string_view write_label,
                   uint64_t write) {
  fmt::format_to(std::back_inserter(out), " {}{}\t\t {}{}\n", read_label, scaled(read, false), write_label,
                 scaled(write, false));
}

void append_stats_block(std::string& out, const std::string& label, const BlkIoStats& stats,
                        const std::array<uint32_t, 2>* depth) {
  out += label;
  out += '\n';
  append_pair(out, "Reads Queued:    ", stats.queued[0], "Writes Queued:    ", stats.queued[1]);
  append_pair(out, "Read Dispatches: ", stats.dispatched[0], "Write Dispatches: ", stats.dispatched[1]);
  append_counts(out, "Reads Requeued:  ", stats.requeued[0], "Writes Requeued:  ", stats.requeued[1]);
  append_pair(out, "Reads Completed: ", stats.completed[0], "Writes Completed: ", stats.completed[1]);
  append_pair(out, "Read Merges:     ", stats.merged[0], "Write Merges:     ", stats.merged[1]);
  if (depth)
    fmt::format_to(std::back_inserter(out), " Read depth:      {:8}{:8}\t Write depth:      {:8}\n",
                   (*depth)[0], ' ', (*depth)[1]);
  if (stats.has_pc()) {
    append_pair(out, "PC Reads Queued: ", stats.queued_pc[0], "PC Writes Queued: ", stats.queued_pc[1]);
    append_pair(out, "PC Read Disp.:   ", stats.dispatched_pc[0],
                "PC Write Disp.:   ", stats.dispatched_pc[1]);
    append_counts(out, "PC Reads Req.:   ", stats.requeued_pc[0], "PC Writes Req.:   ", stats.requeued_pc[1]);
    append_counts(out, "PC Reads Compl.: ", stats.completed_pc[0],
                  "PC Writes Compl.: ", stats.completed_pc[1]);
  }
  fmt::format_to(std::back_inserter(out), " IO unplugs:      {:8}{:8}\t Timer unplugs:    {:8}\n",
                 stats.io_unplugs, ' ', stats.timer_unplugs);
}

}  // namespace

std::string format_blkparse_summary(const analysis::BlkParseResult& result) {
  std::string out;
  for (size_t i = 0; i < result.inputs.size(); ++i) {
    const analysis::BlkInputSummary& input = result.inputs[i];
    if (i) out += '\n';
    std::string name = input.label.substr(0, 31);
    BlkIoStats total;
    for (const analysis::BlkCpuSummary& cpu : input.cpus) {
      append_stats_block(out, fmt::format("CPU{} ({}):", cpu.cpu, name), cpu.stats, &input.max_depth);
      total.add(cpu.stats);
    }
    if (input.cpus.size() > 1) {
      out += '\n';
      append_stats_block(out, fmt::format("Total ({}):", name), total, nullptr);
    }
    uint64_t msec = (input.last_time - input.first_time) / 1000000;
    uint64_t read_rate = 0, write_rate = 0;
    if (msec) {
      read_rate = (1000 * total.completed[0].kib + total.completed[0].bytes) / msec;
      write_rate = (1000 * total.completed[1].kib + total.completed[1].bytes) / msec;
    }
    fmt::format_to(std::back_inserter(out), "\nThroughput (R/W): {}KiB/s / {}KiB/s\n", read_rate, write_rate);
    fmt::format_to(std::back_inserter(out), "Events ({}): {} entries\n", input.label, input.events);
    out += "Skips: 0 forward (0 -   0.0%)\n";
  }
  return out;
}

std::string_view blkparse_driver_data_note() {
  return "\ndiscarded traces containing low-level device driver specific data (only available in binary "
         "output)\n";
}

}  // namespace sonde::output
