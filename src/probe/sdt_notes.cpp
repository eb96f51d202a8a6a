#include "probe/sdt_notes.hpp"

#include <array>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace sonde::probe {

namespace {

constexpr uint32_t kSdtNoteType = 3;
constexpr char kSdtNoteOwner[] = "stapsdt";  // with its NUL: n_namesz is 8

// The first section of that name (perf looks sections up the same way).
Elf_Scn* section_scn_by_name(Elf* elf, const char* name, GElf_Shdr* header) {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return nullptr;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    if (gelf_getshdr(scn, header) == nullptr) continue;
    const char* section_name = elf_strptr(elf, shstrndx, header->sh_name);
    if (section_name != nullptr && std::strcmp(section_name, name) == 0) return scn;
  }
  return nullptr;
}

std::optional<GElf_Shdr> section_by_name(Elf* elf, const char* name) {
  GElf_Shdr header;
  if (section_scn_by_name(elf, name, &header) == nullptr) return std::nullopt;
  return header;
}

uint64_t read_address(const unsigned char* bytes, size_t size, bool big_endian) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; ++i) {
    size_t index = big_endian ? i : size - 1 - i;
    value = (value << 8) | bytes[index];
  }
  return value;
}

// Moves `address` by (to - from), in the ELF class's width.
uint64_t rebase(uint64_t address, uint64_t from, uint64_t to, bool is32) {
  uint64_t moved = address + to - from;
  return is32 ? (moved & 0xffffffffu) : moved;
}

bool is_32bit(Elf* elf) { return gelf_getclass(elf) == ELFCLASS32; }

// gas register names the uprobe parser does not know, and the uprobe names they stand for.
struct RegisterName {
  std::string_view gas, uprobe;
};
constexpr std::array<RegisterName, 52> kRegisterNames{{
    {"%eax", "%ax"},   {"%rax", "%ax"},   {"%al", "%ax"},    {"%ah", "%ax"},    {"%ebx", "%bx"},
    {"%rbx", "%bx"},   {"%bl", "%bx"},    {"%bh", "%bx"},    {"%ecx", "%cx"},   {"%rcx", "%cx"},
    {"%cl", "%cx"},    {"%ch", "%cx"},    {"%edx", "%dx"},   {"%rdx", "%dx"},   {"%dl", "%dx"},
    {"%dh", "%dx"},    {"%esi", "%si"},   {"%rsi", "%si"},   {"%sil", "%si"},   {"%edi", "%di"},
    {"%rdi", "%di"},   {"%dil", "%di"},   {"%ebp", "%bp"},   {"%rbp", "%bp"},   {"%bpl", "%bp"},
    {"%rsp", "%sp"},   {"%esp", "%sp"},   {"%spl", "%sp"},   {"%r8b", "%r8"},   {"%r8w", "%r8"},
    {"%r8d", "%r8"},   {"%r9b", "%r9"},   {"%r9w", "%r9"},   {"%r9d", "%r9"},   {"%r10b", "%r10"},
    {"%r10w", "%r10"}, {"%r10d", "%r10"}, {"%r11b", "%r11"}, {"%r11w", "%r11"}, {"%r11d", "%r11"},
    {"%r12b", "%r12"}, {"%r12w", "%r12"}, {"%r12d", "%r12"}, {"%r13b", "%r13"}, {"%r13w", "%r13"},
    {"%r13d", "%r13"}, {"%r14b", "%r14"}, {"%r14w", "%r14"}, {"%r14d", "%r14"}, {"%r15b", "%r15"},
    {"%r15w", "%r15"}, {"%r15d", "%r15"},
}};
constexpr size_t kMaxRegisterName = 6;  // "%r15d" and one more: longer names are skipped

// perf compares only the operand's length of each table name (strncmp), so a name that begins a
// table entry takes that entry's uprobe name: "%r1" -> "%r10", "%ea" -> "%ax".
std::string uprobe_register(std::string_view gas) {
  for (const RegisterName& entry : kRegisterNames)
    if (entry.gas.size() >= gas.size() && entry.gas.substr(0, gas.size()) == gas)
      return std::string(entry.uprobe);
  return std::string(gas);
}

// The type suffix for the "SIZE" before '@' (strtol's reading of it, as perf's); nullopt outside
// -8..8.
std::optional<std::string_view> type_suffix(std::string_view size_text) {
  static constexpr std::array<std::string_view, 17> kSuffixes{
      ":s64", "", "", "", ":s32", "", ":s16", ":s8", "", ":u8", ":u16", "", ":u32", "", "", "", ":u64"};
  std::string text(size_text);
  long size = std::strtol(text.c_str(), nullptr, 10);
  if (size < -8 || size > 8) return std::nullopt;
  return kSuffixes[static_cast<size_t>(size + 8)];
}

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// perf's operand pattern ^([+-]?)([0-9]*)(\(?)(%[a-z][a-z0-9]+)(\)?)$, matched by hand.
struct Operand {
  std::string_view sign, digits, open, reg, close;
};
std::optional<Operand> match_operand(std::string_view op) {
  Operand parts;
  size_t at = 0;
  auto take_while = [&](auto predicate, size_t most) {
    size_t start = at;
    while (at < op.size() && at - start < most && predicate(op[at])) ++at;
    return op.substr(start, at - start);
  };
  parts.sign = take_while([](char c) { return c == '+' || c == '-'; }, 1);
  parts.digits = take_while(is_digit, std::string_view::npos);
  parts.open = take_while([](char c) { return c == '('; }, 1);
  size_t reg_start = at;
  if (at + 1 >= op.size() || op[at] != '%' || !is_lower(op[at + 1])) return std::nullopt;
  at += 2;
  size_t rest = at;
  while (at < op.size() && (is_lower(op[at]) || is_digit(op[at]))) ++at;
  if (at == rest) return std::nullopt;
  parts.reg = op.substr(reg_start, at - reg_start);
  parts.close = take_while([](char c) { return c == ')'; }, 1);
  if (at != op.size()) return std::nullopt;
  return parts;
}

enum class Conversion { valid, skipped, bad_size };

Conversion convert(std::string_view argument, std::string* fetcharg, std::string* why) {
  std::string_view op = argument, suffix;
  if (size_t at = argument.find('@'); at != std::string_view::npos) {
    std::optional<std::string_view> type = type_suffix(argument.substr(0, at));
    if (!type) {
      if (why) *why = fmt::format("Failed to get a valid sdt type: {}", argument);
      return Conversion::bad_size;
    }
    suffix = *type;
    op = argument.substr(at + 1);
  }
  std::optional<Operand> parts;
  if (op.find(',') == std::string_view::npos && op.find('$') == std::string_view::npos)
    parts = match_operand(op);
  if (!parts || parts->reg.size() > kMaxRegisterName) {
    if (why) *why = fmt::format("Skipping unsupported SDT argument: {}", op);
    return Conversion::skipped;
  }
  // A memory operand gets an explicit sign, and "+0" when it has no displacement.
  std::string prefix;
  if (!parts->open.empty()) {
    if (!parts->sign.empty())
      prefix = parts->sign;
    else if (!parts->digits.empty())
      prefix = "+";
    else
      prefix = "+0";
  }
  *fetcharg = fmt::format("{}{}{}{}{}{}", prefix, parts->digits, parts->open, uprobe_register(parts->reg),
                          parts->close, suffix);
  return Conversion::valid;
}

// The kernel's argv_split: words between runs of white space.
std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    size_t start = at;
    while (at < text.size() && !std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    if (at > start) words.push_back(text.substr(start, at - start));
  }
  return words;
}

}  // namespace

Result<std::vector<SdtNote>> read_sdt_notes(Elf* elf) {
  std::vector<SdtNote> notes;
  GElf_Shdr header;
  Elf_Scn* scn = section_scn_by_name(elf, ".note.stapsdt", &header);
  if (scn == nullptr || header.sh_type != SHT_NOTE || (header.sh_flags & SHF_ALLOC) != 0) return notes;
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (data == nullptr || data->d_buf == nullptr) return notes;

  const bool is32 = is_32bit(elf);
  const size_t address_size = is32 ? 4 : 8;
  const char* ident = elf_getident(elf, nullptr);
  const bool big_endian = ident != nullptr && ident[EI_DATA] == ELFDATA2MSB;
  // Where the linker put .stapsdt.base; the notes record where it was when they were written.
  std::optional<GElf_Shdr> base_section = section_by_name(elf, ".stapsdt.base");

  GElf_Nhdr note;
  size_t name_offset = 0, desc_offset = 0, next = 0;
  for (size_t offset = 0; (next = gelf_getnote(data, offset, &note, &name_offset, &desc_offset)) > 0;
       offset = next) {
    const auto* bytes = static_cast<const unsigned char*>(data->d_buf);
    if (note.n_namesz != sizeof(kSdtNoteOwner) ||
        std::memcmp(bytes + name_offset, kSdtNoteOwner, sizeof(kSdtNoteOwner)) != 0)
      continue;
    if (note.n_type != kSdtNoteType) break;
    const unsigned char* desc = bytes + desc_offset;
    const size_t size = note.n_descsz;
    if (size < 3 * address_size + 3)
      return failf(".note.stapsdt: note {} is {} bytes, too short for an SDT marker", notes.size() + 1, size);
    std::string_view strings(reinterpret_cast<const char*>(desc) + 3 * address_size, size - 3 * address_size);
    size_t provider_end = strings.find('\0');
    if (provider_end == std::string_view::npos)
      return failf(".note.stapsdt: note {} has no end to its provider name", notes.size() + 1);
    SdtNote sdt;
    sdt.provider = std::string(strings.substr(0, provider_end));
    std::string_view rest = strings.substr(provider_end + 1);
    size_t name_end = rest.find('\0');
    sdt.name = std::string(rest.substr(0, name_end));
    if (name_end != std::string_view::npos) {
      rest = rest.substr(name_end + 1);
      sdt.arguments = std::string(rest.substr(0, rest.find('\0')));
    }
    sdt.pc = read_address(desc, address_size, big_endian);
    uint64_t recorded_base = read_address(desc + address_size, address_size, big_endian);
    sdt.semaphore = read_address(desc + 2 * address_size, address_size, big_endian);
    if (base_section && recorded_base != 0)
      sdt.pc = rebase(sdt.pc, recorded_base, base_section->sh_addr, is32);
    notes.push_back(std::move(sdt));
  }
  return notes;
}

std::optional<uint64_t> vaddr_to_file_offset(Elf* elf, uint64_t vaddr) {
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return std::nullopt;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr || phdr.p_type != PT_LOAD) continue;
    if (vaddr >= phdr.p_vaddr && vaddr - phdr.p_vaddr < phdr.p_filesz)
      return vaddr - phdr.p_vaddr + phdr.p_offset;
  }
  return std::nullopt;
}

std::optional<uint64_t> sdt_probe_file_offset(Elf* elf, const SdtNote& note) {
  std::optional<GElf_Shdr> base = section_by_name(elf, ".stapsdt.base");
  if (base && base->sh_offset != 0) return rebase(note.pc, base->sh_addr, base->sh_offset, is_32bit(elf));
  return vaddr_to_file_offset(elf, note.pc);
}

std::optional<uint64_t> semaphore_file_offset(Elf* elf, const SdtNote& note) {
  if (note.semaphore == 0) return std::nullopt;
  std::optional<GElf_Shdr> probes = section_by_name(elf, ".probes");
  if (probes && probes->sh_offset != 0)
    return rebase(note.semaphore, probes->sh_addr, probes->sh_offset, is_32bit(elf));
  return vaddr_to_file_offset(elf, note.semaphore);
}

std::optional<std::string> sdt_argument_to_fetcharg(std::string_view argument, std::string* why) {
  std::string fetcharg;
  if (convert(argument, &fetcharg, why) != Conversion::valid) return std::nullopt;
  return fetcharg;
}

Result<std::vector<std::string>> sdt_fetchargs(const SdtNote& note) {
  std::vector<std::string> fetchargs;
  if (note.arguments.empty() || note.arguments[0] == ':') return fetchargs;
  std::vector<std::string_view> words = split_words(note.arguments);
  for (size_t i = 0; i < words.size(); ++i) {
    std::string fetcharg, why;
    switch (convert(words[i], &fetcharg, &why)) {
      case Conversion::valid:
        fetchargs.push_back(fmt::format("arg{}={}", i + 1, fetcharg));
        break;
      case Conversion::skipped:
        break;
      case Conversion::bad_size:
        return failf("SDT marker {}:{}: {}", note.provider, note.name, why);
    }
  }
  return fetchargs;
}

std::string sdt_event_group(const SdtNote& note) {
  // perf formats the group into 64 bytes.
  std::string group = "sdt_" + note.provider;
  if (group.size() > 63) group.resize(63);
  return group;
}

}  // namespace sonde::probe
