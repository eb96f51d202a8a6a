#include "format/jit_elf.hpp"

#include <elf.h>

#include <array>
#include <cstring>
#include <string_view>

#include "base/bytes.hpp"
#include "base/file.hpp"

namespace sonde::format {

namespace {

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
#else
constexpr uint16_t kMachine = EM_NONE;
#endif

// Section names, at the offsets the section headers give them.
constexpr std::string_view kSectionNames =
    std::string_view("\0.text\0.shstrtab\0.symtab\0.strtab\0.note.gnu.build-id\0", 52);
constexpr uint32_t kTextName = 1, kShstrtabName = 7, kSymtabName = 17, kStrtabName = 25, kNoteName = 33;

// 20 bytes from two FNV-1a passes of different seeds and a rotation: the same code at the same
// address, the same id.
std::array<uint8_t, 20> jit_build_id(std::span<const uint8_t> code, uint64_t load_address) {
  std::array<uint8_t, 20> id{};
  uint64_t seeds[3] = {1469598103934665603ull, 0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full};
  for (size_t part = 0; part < 3; ++part) {
    uint64_t hash = seeds[part];
    auto mix = [&](uint8_t byte) { hash = (hash ^ byte) * 1099511628211ull; };
    for (size_t i = 0; i < 8; ++i) mix(static_cast<uint8_t>(load_address >> (8 * i)));
    for (uint8_t byte : code) mix(byte);
    hash ^= hash >> 29;
    for (size_t i = 0; i < 8 && part * 8 + i < id.size(); ++i)
      id[part * 8 + i] = static_cast<uint8_t>(hash >> (8 * i));
  }
  return id;
}

void pad_to(ByteWriter& out, size_t alignment) {
  size_t aligned = ByteWriter::align_up(out.size(), alignment);
  out.put_zeros(aligned - out.size());
}

}  // namespace

Result<void> write_jit_elf(const std::string& path, const std::string& function,
                           std::span<const uint8_t> code, uint64_t load_address) {
  ByteWriter out;
  // Placeholders for the ELF and program headers, filled in once the offsets are known.
  out.put_zeros(kJitElfTextOffset);
  out.put_bytes(code.data(), code.size());
  const uint64_t shstrtab_at = out.size();
  out.put_bytes(kSectionNames.data(), kSectionNames.size());
  pad_to(out, 8);
  const uint64_t symtab_at = out.size();
  Elf64_Sym symbols[2] = {};
  symbols[1].st_name = 1;
  symbols[1].st_info = ELF64_ST_INFO(STB_LOCAL, STT_FUNC);
  symbols[1].st_shndx = 1;
  symbols[1].st_value = kJitElfTextOffset;
  symbols[1].st_size = code.size();
  out.put(symbols);
  const uint64_t strtab_at = out.size();
  out.put<uint8_t>(0);
  out.put_bytes(function.data(), function.size());
  out.put<uint8_t>(0);
  const uint64_t strtab_size = out.size() - strtab_at;
  pad_to(out, 4);
  const uint64_t note_at = out.size();
  out.put<uint32_t>(4);   // namesz
  out.put<uint32_t>(20);  // descsz
  out.put<uint32_t>(NT_GNU_BUILD_ID);
  out.put_bytes("GNU", 4);
  std::array<uint8_t, 20> id = jit_build_id(code, load_address);
  out.put_bytes(id.data(), id.size());
  pad_to(out, 8);
  const uint64_t sections_at = out.size();

  auto section = [&](uint32_t name, uint32_t type, uint64_t flags, uint64_t addr, uint64_t offset,
                     uint64_t size, uint32_t link, uint32_t info, uint64_t align, uint64_t entsize) {
    Elf64_Shdr header{};
    header.sh_name = name, header.sh_type = type, header.sh_flags = flags, header.sh_addr = addr;
    header.sh_offset = offset, header.sh_size = size, header.sh_link = link, header.sh_info = info;
    header.sh_addralign = align, header.sh_entsize = entsize;
    out.put(header);
  };
  section(0, SHT_NULL, 0, 0, 0, 0, 0, 0, 0, 0);
  section(kTextName, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, kJitElfTextOffset, kJitElfTextOffset,
          code.size(), 0, 0, 16, 0);
  section(kShstrtabName, SHT_STRTAB, 0, 0, shstrtab_at, kSectionNames.size(), 0, 0, 1, 0);
  section(kSymtabName, SHT_SYMTAB, 0, 0, symtab_at, sizeof symbols, 4, 2, 8, sizeof(Elf64_Sym));
  section(kStrtabName, SHT_STRTAB, 0, 0, strtab_at, strtab_size, 0, 0, 1, 0);
  section(kNoteName, SHT_NOTE, SHF_ALLOC, 0, note_at, 36, 0, 0, 4, 0);

  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
  header.e_machine = kMachine;
  header.e_version = EV_CURRENT;
  header.e_entry = kJitElfTextOffset;
  header.e_phoff = sizeof(Elf64_Ehdr);
  header.e_shoff = sections_at;
  header.e_ehsize = sizeof(Elf64_Ehdr);
  header.e_phentsize = sizeof(Elf64_Phdr);
  header.e_phnum = 1;
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = 6;
  header.e_shstrndx = 2;
  // One loadable segment from the file's start over the code, offsets equal to addresses.
  Elf64_Phdr load{};
  load.p_type = PT_LOAD;
  load.p_flags = PF_R | PF_X;
  load.p_filesz = load.p_memsz = kJitElfTextOffset + code.size();
  load.p_align = 8;
  std::string& bytes = out.str();
  std::memcpy(bytes.data(), &header, sizeof header);
  std::memcpy(bytes.data() + sizeof header, &load, sizeof load);

  return replace_file(path, bytes, 0644);
}

}  // namespace sonde::format
