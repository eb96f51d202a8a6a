#include "format/jitdump.hpp"

#include <cstring>

#include "base/bytes.hpp"
#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::format {

namespace {

constexpr uint32_t kMagic = 0x4A695444;  // "JiTD" in the writer's byte order
constexpr uint32_t kHeaderSize = 40;
constexpr uint32_t kPrefixSize = 16;  // id, total_size, timestamp
enum RecordId : uint32_t { kCodeLoad = 0, kCodeMove = 1, kDebugInfo = 2, kClose = 3, kUnwindingInfo = 4 };

}  // namespace

bool is_jitdump_name(std::string_view filename, uint32_t pid) {
  size_t slash = filename.rfind('/');
  std::string_view base = slash == std::string_view::npos ? filename : filename.substr(slash + 1);
  if (!base.starts_with("jit-") || !base.ends_with(".dump")) return false;
  std::string_view digits = base.substr(4, base.size() - 4 - 5);
  auto number = parse_uint(digits, 10);
  if (!number) return false;
  return pid == 0 || *number == pid;
}

Result<JitDump> read_jitdump(const std::string& path) {
  auto text = read_file(path);
  if (!text) return tl::unexpected(text.error());
  std::string_view bytes = *text;
  if (bytes.size() < kHeaderSize)
    return failf("{}: {} bytes, too short for a jitdump header", path, bytes.size());
  uint32_t magic = load<uint32_t>(reinterpret_cast<const uint8_t*>(bytes.data()));
  if (magic != kMagic && magic != __builtin_bswap32(kMagic))
    return failf("{}: not a jitdump file (magic {:#x}, expected {:#x})", path, magic, kMagic);
  OrderedBytes in(bytes, magic != kMagic);
  if (uint32_t version = in.u32(4); version > 1)
    return failf("{}: jitdump version {}, expected 1", path, version);
  JitDump dump;
  dump.pid = in.u32(20);
  dump.flags = in.u64(32);
  if (dump.flags & ~kJitdumpArchTimestamp)
    return failf("{}: jitdump flags {:#x} name features sonde does not know", path, dump.flags);
  // Records follow the header as its total_size says (40 in every writer perf knows).
  size_t at = std::max<size_t>(kHeaderSize, in.u32(8));
  while (in.has(at, kPrefixSize)) {
    uint32_t id = in.u32(at), size = in.u32(at + 4);
    if (size < kPrefixSize || !in.has(at, size)) break;  // perf stops at a cut or broken record
    JitRecord record;
    record.timestamp = in.u64(at + 8);
    if (id == kCodeLoad && size >= 56) {
      record.kind = JitRecord::Kind::load;
      record.pid = in.u32(at + 16), record.tid = in.u32(at + 20);
      record.vma = in.u64(at + 24), record.code_addr = in.u64(at + 32);
      record.code_size = in.u64(at + 40), record.code_index = in.u64(at + 48);
      if (record.code_size > size - 56) break;
      // The name is a NUL-terminated string after the fixed part; the code ends the record.
      std::string_view rest = bytes.substr(at + 56, size - 56 - record.code_size);
      record.name = std::string(rest.substr(0, rest.find('\0')));
      std::string_view code = bytes.substr(at + size - record.code_size, record.code_size);
      record.code.assign(code.begin(), code.end());
      dump.records.push_back(std::move(record));
    } else if (id == kCodeMove && size >= 64) {
      record.kind = JitRecord::Kind::move;
      record.pid = in.u32(at + 16), record.tid = in.u32(at + 20);
      record.vma = in.u64(at + 24), record.code_addr = in.u64(at + 40);
      record.code_size = in.u64(at + 48), record.code_index = in.u64(at + 56);
      dump.records.push_back(std::move(record));
    }
    // Line tables, unwinding tables and the close record are read past.
    at += size;
  }
  return dump;
}

}  // namespace sonde::format
