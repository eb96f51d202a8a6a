#pragma once
// perf trace 6.1's argument "beautifiers": the text it prints for flags, commands and other
// values of syscall arguments, with the names and the quirks of the perf 6.1 binary (checked
// value by value against perf trace 6.1 on this machine), for syscall_line.cpp.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace sonde::output {

// perf builds a call's text with scnprintf at a cursor. glibc rejects the format perf uses for
// unnamed flag bits ("0x%#"): what precedes the bad conversion is written but scnprintf returns -1,
// so the cursor moves back one byte and the next write overwrites the byte before it.
class PerfText {
 public:
  explicit PerfText(std::string& text) : text_(text), cursor_(text.size()) {}
  void put(std::string_view piece) {
    at_cursor() += piece;
    cursor_ = text_.size();
  }
  void put_rejected(std::string_view written) {
    at_cursor() += written;
    --cursor_;
  }
  // The text cut back to the cursor, for appending a piece to it in place of put(); advance()
  // moves the cursor past what was appended.
  std::string& at_cursor() {
    if (text_.size() != cursor_) text_.resize(cursor_);
    return text_;
  }
  void advance() { cursor_ = text_.size(); }
  size_t cursor() const { return cursor_; }

 private:
  std::string& text_;
  size_t cursor_;
};

// How perf prints one argument (its SCA_* beautifier). ByType: not set by a syscall's table, so
// chosen from the field's type and name; Long is perf's default "%ld".
enum class ArgFormat : uint8_t {
  ByType,
  Long,
  Int,
  Hex,
  Pointer,
  Filename,
  Fd,
  FdAt,
  Pid,
  Mode,
  AccessMode,
  OpenFlags,
  MmapProt,
  MmapFlags,
  MremapFlags,
  MadviseBehavior,
  CloneFlags,
  Signal,
  FutexOp,
  FutexVal3,
  Whence,
  FcntlCmd,
  FcntlArg,
  Rlimit,
  SigHow,
  ClockId,
  Itimer,
  EpollCtlOp,
  SocketFamily,
  SocketType,
  SocketProtocol,
  SocketLevel,
  BpfCmd,
  KeyctlOption,
  FsconfigCmd,
  FsmountFlags,
  MsgFlags,
  WaitidOptions,
  GetrandomFlags,
  PipeFlags,
  EventfdFlags,
  PerfFlags,
  SchedPolicy,
  SeccompOp,
  SeccompFlags,
  StatxFlags,
  StatxMask,
  Flock,
  MountFlags,
  RenameatFlags,
  SyncFileRangeFlags,
  PkeyAccessRights,
  PrctlOption,
  PrctlArg2,
  PrctlArg3,
  KcmpType,
  KcmpIdx,
  IoctlCmd,
  ArchPrctlCode
};

// A 32-bit argument (an int, an fd) from its 64-bit register.
inline int32_t low_int(uint64_t value) { return static_cast<int32_t>(static_cast<uint32_t>(value)); }
// The formats perf prints even when the value is zero (string tables, fcntl's cmd).
bool prints_zero(ArgFormat format);

// mount's flags lose the obsolete 0xC0ED magic before perf decides whether they are zero.
uint64_t mount_flags_without_magic(uint64_t flags);

// Appends args[index] as perf 6.1 prints it with `format`, one that needs nothing but the call's
// arguments (the formats that show fd paths or comms are syscall_line.cpp's), and sets in
// `skipped` the arguments perf then leaves out (bit i: argument i; perf's arg->mask).
void put_value(PerfText& text, ArgFormat format, const std::array<uint64_t, 6>& args, size_t index,
               uint32_t& skipped);

// Parts of fcntl's beautifiers: open flags (F_SETFL, F_GETFL's return), the command's name,
// a lease type; each also as an append to `out`.
std::string open_flags_text(uint32_t flags);
std::string fcntl_cmd_name(int32_t cmd);
std::string lease_name(int32_t lease);
void append_open_flags(std::string& out, uint32_t flags);
void append_fcntl_cmd_name(std::string& out, int32_t cmd);
void append_lease_name(std::string& out, int32_t lease);

// printf's "%#lx": "0" for zero, "0x..." otherwise.
std::string c_hex(uint64_t value);
void append_c_hex(std::string& out, uint64_t value);
// printf's "%ld".
void append_decimal(std::string& out, int64_t value);

}  // namespace sonde::output
