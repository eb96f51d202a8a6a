#include "probe/line_program.hpp"

#include <dwarf.h>
#include <gelf.h>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace sonde::probe {

namespace {

// A section's bytes, when present and not compressed.
std::optional<std::string_view> section_bytes(Elf* elf, const char* name) {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return std::nullopt;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header;
    if (!gelf_getshdr(scn, &header)) continue;
    const char* own = elf_strptr(elf, shstrndx, header.sh_name);
    if (!own || std::strcmp(own, name) != 0) continue;
    if (header.sh_flags & SHF_COMPRESSED) return std::nullopt;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) return std::nullopt;
    return std::string_view(static_cast<const char*>(data->d_buf), data->d_size);
  }
  return std::string_view();
}

struct Reader {
  std::string_view bytes;
  size_t at = 0;
  bool failed = false;

  bool has(size_t n) {
    if (at + n > bytes.size()) failed = true;
    return !failed;
  }
  uint64_t fixed(size_t n) {
    if (!has(n)) return 0;
    uint64_t value = 0;
    std::memcpy(&value, bytes.data() + at, n);  // little-endian host and file (x86-64)
    at += n;
    return value;
  }
  uint64_t uleb() {
    uint64_t value = 0;
    for (int shift = 0; has(1); shift += 7) {
      uint8_t byte = static_cast<uint8_t>(bytes[at++]);
      if (shift < 64) value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) break;
    }
    return value;
  }
  int64_t sleb() {
    int64_t value = 0;
    int shift = 0;
    uint8_t byte = 0;
    do {
      if (!has(1)) return 0;
      byte = static_cast<uint8_t>(bytes[at++]);
      if (shift < 64) value |= static_cast<int64_t>(byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    if (shift < 64 && (byte & 0x40)) value |= -(int64_t{1} << shift);
    return value;
  }
  std::string_view cstring() {
    size_t end = bytes.find('\0', at);
    if (end == std::string_view::npos) {
      failed = true;
      return {};
    }
    std::string_view text = bytes.substr(at, end - at);
    at = end + 1;
    return text;
  }
};

std::string_view string_at(std::string_view section, uint64_t offset) {
  if (offset >= section.size()) return {};
  size_t end = section.find('\0', offset);
  return section.substr(offset, end == std::string_view::npos ? std::string_view::npos : end - offset);
}

std::string joined(std::string_view directory, std::string_view name) {
  if (name.starts_with('/') || directory.empty()) return std::string(name);
  std::string path(directory);
  if (!path.ends_with('/')) path += '/';
  return path + std::string(name);
}

}  // namespace

std::optional<LineProgram> read_line_program(Dwarf* dwarf, Dwarf_Die* cu, uint64_t low, uint64_t high) {
  Elf* elf = dwarf_getelf(dwarf);
  Dwarf_Attribute attribute;
  Dwarf_Word offset = 0;
  if (!elf || !dwarf_attr(cu, DW_AT_stmt_list, &attribute) || dwarf_formudata(&attribute, &offset) != 0)
    return std::nullopt;
  auto line = section_bytes(elf, ".debug_line");
  auto line_str = section_bytes(elf, ".debug_line_str");
  auto str = section_bytes(elf, ".debug_str");
  if (!line || !line_str || !str || line->empty()) return std::nullopt;
  const char* comp_dir = dwarf_attr(cu, DW_AT_comp_dir, &attribute) ? dwarf_formstring(&attribute) : nullptr;

  Reader in{*line, offset};
  uint64_t length = in.fixed(4);
  size_t offset_size = 4;
  if (length == 0xffffffff) {
    length = in.fixed(8);
    offset_size = 8;
  }
  size_t end = in.at + length;
  if (end > line->size()) return std::nullopt;
  unsigned version = static_cast<unsigned>(in.fixed(2));
  if (version < 2 || version > 5) return std::nullopt;
  size_t address_size = 8;
  if (version >= 5) {
    address_size = in.fixed(1);
    in.fixed(1);  // segment selector size
  }
  uint64_t header_length = in.fixed(offset_size);
  size_t program = in.at + header_length;
  unsigned min_length = static_cast<unsigned>(in.fixed(1));
  if (version >= 4) in.fixed(1);  // maximum operations per instruction (1 off VLIW)
  bool default_statement = in.fixed(1) != 0;
  int line_base = static_cast<int8_t>(in.fixed(1));
  unsigned line_range = static_cast<unsigned>(in.fixed(1));
  unsigned opcode_base = static_cast<unsigned>(in.fixed(1));
  if (line_range == 0 || opcode_base == 0) return std::nullopt;
  std::vector<uint8_t> standard_lengths(opcode_base, 0);
  for (unsigned i = 1; i < opcode_base; ++i) standard_lengths[i] = static_cast<uint8_t>(in.fixed(1));

  LineProgram result;
  std::vector<std::string> directories;
  if (version >= 5) {
    // Entry formats: (content type, form) pairs, then the entries.
    auto read_entries = [&](bool files) -> bool {
      unsigned format_count = static_cast<unsigned>(in.fixed(1));
      std::vector<std::pair<uint64_t, uint64_t>> formats;
      for (unsigned i = 0; i < format_count; ++i) {
        uint64_t type = in.uleb();  // two statements: argument order is unspecified
        uint64_t form = in.uleb();
        formats.emplace_back(type, form);
      }
      uint64_t count = in.uleb();
      for (uint64_t i = 0; i < count && !in.failed; ++i) {
        std::string_view path;
        uint64_t directory = 0;
        for (const auto& [type, form] : formats) {
          std::string_view text;
          uint64_t number = 0;
          switch (form) {
            case DW_FORM_string:
              text = in.cstring();
              break;
            case DW_FORM_line_strp:
              text = string_at(*line_str, in.fixed(offset_size));
              break;
            case DW_FORM_strp:
              text = string_at(*str, in.fixed(offset_size));
              break;
            case DW_FORM_udata:
              number = in.uleb();
              break;
            case DW_FORM_data1:
              number = in.fixed(1);
              break;
            case DW_FORM_data2:
              number = in.fixed(2);
              break;
            case DW_FORM_data4:
              number = in.fixed(4);
              break;
            case DW_FORM_data8:
              number = in.fixed(8);
              break;
            case DW_FORM_data16:
              if (in.has(16)) in.at += 16;
              break;
            case DW_FORM_block: {
              uint64_t size = in.uleb();
              if (in.has(size)) in.at += size;
              break;
            }
            default:
              return false;
          }
          if (type == DW_LNCT_path) path = text;
          if (type == DW_LNCT_directory_index) directory = number;
        }
        if (!files) {
          // Directory 0 is the compilation directory; relative ones are under it.
          std::string dir(path);
          if (i > 0 && !dir.starts_with('/') && comp_dir) dir = joined(comp_dir, dir);
          directories.push_back(std::move(dir));
        } else {
          std::string_view dir =
              directory < directories.size() ? std::string_view(directories[directory]) : "";
          result.files.push_back(joined(dir, path));
        }
      }
      return !in.failed;
    };
    if (!read_entries(false) || !read_entries(true)) return std::nullopt;
  } else {
    directories.push_back(comp_dir ? comp_dir : "");
    for (std::string_view dir = in.cstring(); !in.failed && !dir.empty(); dir = in.cstring())
      directories.push_back(dir.starts_with('/') || !comp_dir ? std::string(dir) : joined(comp_dir, dir));
    result.files.emplace_back("???");  // file 0 does not exist before DWARF 5
    for (std::string_view name = in.cstring(); !in.failed && !name.empty(); name = in.cstring()) {
      uint64_t directory = in.uleb();
      in.uleb();  // modification time
      in.uleb();  // length
      std::string_view dir = directory < directories.size() ? std::string_view(directories[directory]) : "";
      result.files.push_back(joined(dir, name));
    }
  }
  if (in.failed || program > end) return std::nullopt;

  in.at = program;
  uint64_t address = 0;
  uint32_t file = 1, number = 1;
  bool statement = default_statement;
  auto emit = [&](bool end_sequence) {
    if (address >= low && address < high)
      result.rows.push_back({address, file, number, statement, end_sequence});
  };
  auto reset = [&] {
    address = 0;
    file = 1;
    number = 1;
    statement = default_statement;
  };
  while (in.at < end && !in.failed) {
    unsigned opcode = static_cast<unsigned>(in.fixed(1));
    if (opcode >= opcode_base) {
      unsigned adjusted = opcode - opcode_base;
      address += static_cast<uint64_t>(adjusted / line_range) * min_length;
      number = static_cast<uint32_t>(static_cast<int64_t>(number) + line_base +
                                     static_cast<int>(adjusted % line_range));
      emit(false);
      continue;
    }
    switch (opcode) {
      case 0: {  // extended
        uint64_t size = in.uleb();
        size_t next = in.at + size;
        unsigned sub = size ? static_cast<unsigned>(in.fixed(1)) : 0;
        if (sub == DW_LNE_end_sequence) {
          emit(true);
          reset();
        } else if (sub == DW_LNE_set_address) {
          address = in.fixed(std::min<size_t>(address_size, size - 1));
        }
        in.at = next;
        break;
      }
      case DW_LNS_copy:
        emit(false);
        break;
      case DW_LNS_advance_pc:
        address += in.uleb() * min_length;
        break;
      case DW_LNS_advance_line:
        number = static_cast<uint32_t>(static_cast<int64_t>(number) + in.sleb());
        break;
      case DW_LNS_set_file:
        file = static_cast<uint32_t>(in.uleb());
        break;
      case DW_LNS_set_column:
        in.uleb();
        break;
      case DW_LNS_negate_stmt:
        statement = !statement;
        break;
      case DW_LNS_set_basic_block:
        break;
      case DW_LNS_const_add_pc:
        address += static_cast<uint64_t>((255 - opcode_base) / line_range) * min_length;
        break;
      case DW_LNS_fixed_advance_pc:
        address += in.fixed(2);
        break;
      case DW_LNS_set_prologue_end:
      case DW_LNS_set_epilogue_begin:
        break;
      case DW_LNS_set_isa:
        in.uleb();
        break;
      default:
        for (unsigned i = 0; i < standard_lengths[opcode]; ++i) in.uleb();
        break;
    }
  }
  if (in.failed) return std::nullopt;
  return result;
}

}  // namespace sonde::probe
