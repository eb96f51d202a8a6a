#include "output/trace/syscall_arg_beautifiers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "output/trace/syscall_name_tables.hpp"

namespace sonde::output {
namespace {

using namespace syscall_names;

using namespace std::string_view_literals;

// Hex digits without a prefix, printf's "%x": "0" for zero.
void append_hex_digits(std::string& out, uint64_t value) {
  char digits[16];
  char* start = std::end(digits);
  do {
    *--start = "0123456789abcdef"[value & 0xf];
    value >>= 4;
  } while (value != 0);
  out.append(start, std::end(digits));
}

// printf's "%#x", which keeps the low 32 bits.
void append_hex32(std::string& out, uint32_t value) { append_c_hex(out, value); }

// How perf prints a number its string table has no name for.
enum class Fallback : uint8_t { Decimal, AltHex, Hex };  // "%d", "%#x", "%x"

// perf's strarray__scnprintf: the name, or the number in `fallback` format.
void append_name_or(std::string& out, const NameTable& table, int32_t value,
                    Fallback fallback = Fallback::Decimal) {
  const std::string_view name = table(value);
  if (!name.empty()) {
    out += name;
    return;
  }
  switch (fallback) {
    case Fallback::AltHex:
      return append_hex32(out, static_cast<uint32_t>(value));
    case Fallback::Hex:
      return append_hex_digits(out, static_cast<uint32_t>(value));
    case Fallback::Decimal:
      return append_decimal(out, value);
  }
}

// perf's P_FLAG lists: each flag present (any of its bits, or all of them with `whole`) prints
// and is cleared, in list order; what remains prints as hex.
void append_flag_list(std::string& out, uint64_t flags, const FlagList& list, bool whole = false) {
  const size_t start = out.size();
  for (const FlagList::Flag& flag : list) {
    if (whole ? (flags & flag.bits) != flag.bits : (flags & flag.bits) == 0) continue;
    if (out.size() != start) out += '|';
    out += flag.name;
    flags &= ~flag.bits;
  }
  if (flags != 0) {  // printed with "%#x", which keeps the low 32 bits
    if (out.size() != start) out += '|';
    append_hex32(out, static_cast<uint32_t>(flags));
  }
}

// perf's strarray__scnprintf_flags over a generated array: an unnamed bit inside the array hits
// the "0x%#" format glibc rejects; bits past the array are dropped.
void put_flag_array(PerfText& text, const NameTable& table, uint64_t flags) {
  if (flags == 0) {
    const std::string_view zero = table(0);
    text.put(zero.empty() ? "0" : zero);
    return;
  }
  const size_t start = text.cursor();
  for (size_t entry = 1; entry < table.size() && entry <= 64; ++entry) {
    if ((flags & (uint64_t{1} << (entry - 1))) == 0) continue;
    if (text.cursor() != start) text.put("|");
    const std::string_view name = table(static_cast<int64_t>(entry));
    if (name.empty()) {
      text.put_rejected("0x");
    } else {
      text.put(name);
    }
  }
}

// Arguments printed from one of perf's string tables (SCA_STRARRAY): zero has a name too.
const NameTable* named_table(ArgFormat format) {
  switch (format) {
    case ArgFormat::Whence:
      return &kWhences;
    case ArgFormat::Rlimit:
      return &kRlimits;
    case ArgFormat::SigHow:
      return &kSigHow;
    case ArgFormat::ClockId:
      return &kClockIds;
    case ArgFormat::Itimer:
      return &kItimers;
    case ArgFormat::EpollCtlOp:
      return &kEpollCtlOps;
    case ArgFormat::BpfCmd:
      return &kBpfCmds;
    case ArgFormat::SocketLevel:
      return &kSocketLevels;
    case ArgFormat::FsconfigCmd:
      return &kFsconfigCmds;
    case ArgFormat::KeyctlOption:
      return &kKeyctlOptions;
    case ArgFormat::SocketFamily:
      return &kSocketFamilies;
    default:
      return nullptr;
  }
}

// Arguments printed as perf's P_FLAG lists of an int.
const FlagList* flag_list_of(ArgFormat format) {
  switch (format) {
    case ArgFormat::MsgFlags:
      return &kMsgFlags;
    case ArgFormat::WaitidOptions:
      return &kWaitidOptions;
    case ArgFormat::PipeFlags:
      return &kPipeFlags;
    case ArgFormat::GetrandomFlags:
      return &kGetrandomFlags;
    case ArgFormat::PerfFlags:
      return &kPerfFlags;
    case ArgFormat::EventfdFlags:
      return &kEventfdFlags;
    case ArgFormat::SeccompFlags:
      return &kSeccompFlags;
    default:
      return nullptr;
  }
}

// Arguments printed from perf's generated flag arrays.
const NameTable* flag_array_of(ArgFormat format) {
  switch (format) {
    case ArgFormat::MmapProt:
      return &kMmapProt;
    case ArgFormat::MremapFlags:
      return &kMremapFlags;
    case ArgFormat::RenameatFlags:
      return &kRenameatFlags;
    case ArgFormat::PkeyAccessRights:
      return &kPkeyAccessRights;
    case ArgFormat::FsmountFlags:
      return &kFsmountFlags;
    default:
      return nullptr;
  }
}

void append_access_mode(std::string& out, int32_t mode) {
  if (mode == 0) {
    out += 'F';
    return;
  }
  for (const FlagList::Flag& flag : kAccessModes) {
    if ((static_cast<uint32_t>(mode) & flag.bits) == 0) continue;
    out += flag.name;
    mode &= ~static_cast<int32_t>(flag.bits);
  }
  if (mode != 0) {
    out += '|';
    append_hex32(out, static_cast<uint32_t>(mode));
  }
}

// FUTEX_* commands, and the arguments each leaves unused (bit 3 utime, 4 uaddr2, 5 val3).
void append_futex_op(std::string& out, int32_t op, uint32_t& skipped) {
  // By command: 0x30 uaddr2|val3, 0x38 utime|uaddr2|val3, 0x28 utime|val3, 0x10 uaddr2, 0x08 utime.
  constexpr uint32_t unused[] = {0x30, 0x38, 0x38, 0x28, 0x08, 0, 0x38, 0x38, 0x30, 0x10, 0x10, 0, 0x08};
  const int32_t command = op & ~(128 | 256);
  const std::string_view name = kFutexCommands(command);
  if (name.empty()) {
    append_hex32(out, static_cast<uint32_t>(command));
  } else {
    out += name;
    skipped |= unused[command];
  }
  if ((op & 128) != 0) out += "|PRIVATE_FLAG"sv;
  if ((op & 256) != 0) out += "|CLOCK_REALTIME"sv;
}

void append_socket_type(std::string& out, int32_t type) {
  append_name_or(out, kSocketTypes, type & 0xf, Fallback::AltHex);
  uint32_t flags = static_cast<uint32_t>(type) & ~0xfu;
  for (const FlagList::Flag& flag : kSocketTypeFlags) {
    if ((flags & flag.bits) == 0) continue;
    out += '|';
    out += flag.name;
    flags &= ~static_cast<uint32_t>(flag.bits);
  }
  if (flags != 0) {
    out += '|';
    append_hex32(out, flags);
  }
}

void append_sched_policy(std::string& out, int32_t value) {
  uint32_t flags = static_cast<uint32_t>(value) & ~0xffu;
  append_name_or(out, kSchedPolicies, value & 0xff, Fallback::AltHex);
  if ((flags & 0x40000000) != 0) out += "|RESET_ON_FORK"sv;
  flags &= ~0x40000000u;
  if (flags != 0) {
    out += '|';
    append_hex32(out, flags);
  }
}

// perf 6.1's statx beautifiers drop the names they match (a "%s%s" format given three strings),
// so only the unknown bits show, as hex.
void append_statx_bits(std::string& out, uint32_t value, uint32_t known) {
  if ((value & ~known) != 0) append_hex32(out, value & ~known);
}

// prctl options whose extra arguments perf does not print (bit i: argument i).
uint32_t prctl_unused_arguments(uint64_t option) {
  // GET_PDEATHSIG, GET_DUMPABLE, GET_SECUREBITS: none; SET_PDEATHSIG, SET_DUMPABLE, SET_NAME,
  // SET_SECUREBITS, {SET,GET}_CHILD_SUBREAPER: arg2 only; SET_MM: arg2, arg3.
  constexpr std::pair<uint64_t, uint32_t> unused[] = {{2, 0x3e},  {3, 0x3e},  {27, 0x3e}, {1, 0x3c},
                                                      {4, 0x3c},  {15, 0x3c}, {28, 0x3c}, {36, 0x3c},
                                                      {37, 0x3c}, {35, 0x38}};
  for (const auto& [known, arguments] : unused) {
    if (known == option) return arguments;
  }
  return 0;
}

void append_ioctl_cmd(std::string& out, uint64_t cmd) {
  const auto dir = static_cast<uint32_t>((cmd >> 30) & 3), type = static_cast<uint32_t>((cmd >> 8) & 0xff),
             nr = static_cast<uint32_t>(cmd & 0xff), size = static_cast<uint32_t>((cmd >> 16) & 0x3fff);
  struct Type {
    uint32_t type;
    const NameTable& names;
    std::string_view prefix;
    uint32_t shown_type;  // in the tuple for an unnamed command: perf 6.1 shows KVM's for perf's own
  };
  const Type types[] = {{'$', kPerfIoctls, "PERF_", 0xae},
                        {'A', kSndPcmIoctls, "SNDRV_PCM_", 'A'},
                        {'T', kTtyIoctls, "", 'T'},
                        {'U', kSndCtlIoctls, "SNDRV_CTL_", 'U'},
                        {'d', kDrmIoctls, "DRM_", 'd'},
                        {0xae, kKvmIoctls, "KVM_", 0xae},
                        {0xaf, (dir & 2) != 0 ? kVhostReadIoctls : kVhostWriteIoctls, "VHOST_", 0xaf}};
  const auto tuple_item = [&out](uint32_t value, char after) {
    append_hex32(out, value);
    out += after;
    if (after == ',') out += ' ';
  };
  for (const Type& known : types) {
    if (known.type != type) continue;
    const std::string_view name = known.names(nr);
    if (!name.empty()) {
      out += known.prefix;
      out += name;
      return;
    }
    out += '(';
    tuple_item(known.shown_type, ',');
    tuple_item(nr, ',');
    tuple_item(dir, ')');
    return;
  }
  out += '(';
  out += kIoctlDirections(dir);
  out += ", "sv;
  tuple_item(type, ',');
  tuple_item(nr, ',');
  tuple_item(size, ')');
}

}  // namespace

void append_decimal(std::string& out, int64_t value) {
  const fmt::format_int text(value);
  out.append(text.data(), text.size());
}

void append_c_hex(std::string& out, uint64_t value) {
  if (value != 0) out += "0x"sv;
  append_hex_digits(out, value);
}

std::string c_hex(uint64_t value) {
  std::string out;
  append_c_hex(out, value);
  return out;
}

bool prints_zero(ArgFormat format) { return format == ArgFormat::FcntlCmd || named_table(format) != nullptr; }

uint64_t mount_flags_without_magic(uint64_t flags) {
  return (flags & 0xffff0000) == 0xc0ed0000 ? flags & ~uint64_t{0xffff0000} : flags;
}

void append_open_flags(std::string& out, uint32_t flags) {
  const size_t start = out.size();
  if ((flags & 3) == 0) out += "RDONLY"sv;
  if (flags == 0) return;
  uint32_t left = flags;
  const auto add = [&](std::string_view name, uint32_t clear) {
    if (out.size() != start) out += '|';
    out += name;
    left &= ~clear;
  };
  for (const FlagList::Flag& flag : kOpenFlags) {
    if ((left & flag.bits) != 0) add(flag.name, static_cast<uint32_t>(flag.bits));
  }
  if ((left & 04010000) == 04010000) {
    add("SYNC", 0);  // printed, not cleared: its bits show again as hex
  } else if ((left & 010000) != 0) {
    add("DSYNC", 010000);
  }
  if ((left & 01000) != 0) add("TRUNC", 01000);
  if ((left & 01) != 0) add("WRONLY", 01);
  if (left != 0) {
    if (out.size() != start) out += '|';
    append_hex32(out, left);
  }
}

void append_fcntl_cmd_name(std::string& out, int32_t cmd) { append_name_or(out, kFcntlCmds, cmd); }
void append_lease_name(std::string& out, int32_t lease) {
  append_name_or(out, kLeases, lease, Fallback::Hex);
}

std::string open_flags_text(uint32_t flags) {
  std::string out;
  append_open_flags(out, flags);
  return out;
}

std::string fcntl_cmd_name(int32_t cmd) {
  std::string out;
  append_fcntl_cmd_name(out, cmd);
  return out;
}

std::string lease_name(int32_t lease) {
  std::string out;
  append_lease_name(out, lease);
  return out;
}

void put_value(PerfText& text, ArgFormat format, const std::array<uint64_t, 6>& args, size_t index,
               uint32_t& skipped) {
  const uint64_t value = args[index];
  const int32_t number = low_int(value);
  // The formats that may leave the cursor behind the text (perf's rejected "%#"), through `text`.
  switch (format) {
    case ArgFormat::MmapFlags:
      if ((value & 0x20) != 0) skipped |= (1u << 4) | (1u << 5);  // MAP_ANONYMOUS: no fd, offset
      return put_flag_array(text, kMmapFlags, value);
    case ArgFormat::MadviseBehavior: {
      const std::string_view name = kMadviseBehaviors(number);
      if (name.empty()) return text.put_rejected("");  // perf's "%#" format
      std::string& out = text.at_cursor();
      out += "MADV_"sv;
      out += name;
      return text.advance();
    }
    case ArgFormat::MountFlags:
      return put_flag_array(text, kMountFlags, mount_flags_without_magic(value));
    case ArgFormat::SyncFileRangeFlags:
      if ((value & 7) == 7) {  // WRITE_AND_WAIT, then the rest, which prints "0" when nothing is left
        text.put("WRITE_AND_WAIT");
        return put_flag_array(text, kSyncFileRangeFlags, value & ~uint64_t{7});
      }
      return put_flag_array(text, kSyncFileRangeFlags, value);
    default:
      if (const NameTable* bits = flag_array_of(format)) return put_flag_array(text, *bits, value);
      break;
  }
  // The others append at the cursor.
  std::string& out = text.at_cursor();
  switch (format) {
    case ArgFormat::Int:
      append_decimal(out, number);
      break;
    case ArgFormat::Hex:
      append_c_hex(out, value);
      break;
    case ArgFormat::Pointer:
      if (value == 0) {
        out += "NULL"sv;
      } else {
        append_c_hex(out, value);
      }
      break;
    case ArgFormat::Filename:
      append_hex32(out, static_cast<uint32_t>(value));  // "%#x" of the pointer
      break;
    case ArgFormat::Mode:
      append_flag_list(out, static_cast<uint32_t>(number), kModeBits, true);
      break;
    case ArgFormat::AccessMode:
      append_access_mode(out, number);
      break;
    case ArgFormat::OpenFlags:
      if ((number & 0100) == 0) skipped |= 1u << (index + 1);  // the mode only with O_CREAT
      append_open_flags(out, static_cast<uint32_t>(number));
      break;
    case ArgFormat::CloneFlags:
      if ((value & 0x100000) == 0) skipped |= 1u << 2;   // parent_tidptr without PARENT_SETTID
      if ((value & 0x1200000) == 0) skipped |= 1u << 3;  // child_tidptr without CHILD_*TID
      if ((value & 0x80000) == 0) skipped |= 1u << 4;    // tls without SETTLS
      append_flag_list(out, value, kCloneFlags);
      break;
    case ArgFormat::Signal:
      append_name_or(out, kSignals, number, Fallback::AltHex);
      break;
    case ArgFormat::FutexOp:
      append_futex_op(out, number, skipped);
      break;
    case ArgFormat::FutexVal3:  // perf 6.1 prints "%#xd"
      if (static_cast<uint32_t>(value) == 0xffffffff) {
        out += "MATCH_ANY"sv;
      } else {
        append_hex32(out, static_cast<uint32_t>(value));
        out += 'd';
      }
      break;
    case ArgFormat::SocketType:
      append_socket_type(out, number);
      break;
    case ArgFormat::SocketProtocol: {  // IP protocols for AF_INET and AF_INET6
      const int32_t family = low_int(args[0]);
      if (family == 2 || family == 10) {
        append_name_or(out, kIpProtocols, number);
      } else {
        append_decimal(out, number);
      }
      break;
    }
    case ArgFormat::SchedPolicy:
      append_sched_policy(out, number);
      break;
    case ArgFormat::SeccompOp:
      if (number == 0) {
        out += "STRICT"sv;
      } else if (number == 1) {
        out += "FILTER"sv;
      } else {
        append_hex32(out, static_cast<uint32_t>(number));
      }
      break;
    case ArgFormat::StatxFlags:
      append_statx_bits(out, static_cast<uint32_t>(number), 0x7f00);
      break;
    case ArgFormat::StatxMask:
      append_statx_bits(out, static_cast<uint32_t>(number), 0x3fff);
      break;
    case ArgFormat::Flock:
      append_flag_list(out, static_cast<uint32_t>(number), kFlockOps, true);
      break;
    case ArgFormat::PrctlOption:
      skipped |= prctl_unused_arguments(value);
      append_name_or(out, kPrctlOptions, number);
      break;
    case ArgFormat::PrctlArg2: {  // PR_SET_MM's command, PR_SET_NAME's buffer
      const int32_t option = low_int(args[0]);
      if (option == 35) {
        append_name_or(out, kPrctlSetMm, number);
      } else if (option == 15) {
        append_c_hex(out, value);
      } else {
        append_decimal(out, static_cast<int64_t>(value));
      }
      break;
    }
    case ArgFormat::PrctlArg3:
      if (low_int(args[0]) == 35) {
        append_c_hex(out, value);
      } else {
        append_decimal(out, static_cast<int64_t>(value));
      }
      break;
    case ArgFormat::KcmpType:
      if (value != 0) skipped |= (1u << 3) | (1u << 4);  // idx1, idx2 are fds only for KCMP_FILE
      append_name_or(out, kKcmpTypes, number);
      break;
    case ArgFormat::IoctlCmd:
      append_ioctl_cmd(out, value);
      break;
    case ArgFormat::ArchPrctlCode:
      append_name_or(out, kArchPrctlCodes, number, Fallback::AltHex);
      break;
    default:
      if (const NameTable* named = named_table(format)) {
        append_name_or(out, *named, number);
      } else if (const FlagList* flags = flag_list_of(format)) {
        append_flag_list(out, static_cast<uint32_t>(number), *flags);
      } else {
        append_decimal(out, static_cast<int64_t>(value));  // perf's "%ld"
      }
  }
  text.advance();
}

}  // namespace sonde::output
