#include "symbols/elf_image.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <span>

#include "format/build_ids.hpp"

namespace sonde::symbols {

namespace {

void ensure_libelf() {
  static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
  (void)ready;
}

std::string notes_build_id(Elf_Data* data, size_t align) {
  if (!data || !data->d_buf) return "";
  std::span<const uint8_t> bytes(static_cast<const uint8_t*>(data->d_buf), data->d_size);
  auto id = format::find_gnu_build_id(bytes, align);
  return id ? format::build_id_hex(*id) : "";
}

}  // namespace

Result<ElfImage> ElfImage::open(const std::string& path) {
  ensure_libelf();
  ElfImage image;
  image.path_ = path;
  image.fd_ = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!image.fd_) return failf("{}: {}", path, errno_text(errno));
  image.elf_ = elf_begin(image.fd_.get(), ELF_C_READ_MMAP, nullptr);
  if (auto parsed = image.parse(); !parsed) return tl::unexpected(parsed.error());
  return image;
}

Result<ElfImage> ElfImage::open_memory(std::vector<char> bytes, const std::string& name) {
  ensure_libelf();
  ElfImage image;
  image.path_ = name;
  image.memory_ = std::move(bytes);
  image.elf_ = elf_memory(image.memory_.data(), image.memory_.size());
  if (auto parsed = image.parse(); !parsed) return tl::unexpected(parsed.error());
  return image;
}

Result<void> ElfImage::parse() {
  ElfImage& image = *this;
  const std::string& path = path_;
  if (!image.elf_ || elf_kind(image.elf_) != ELF_K_ELF || !gelf_getehdr(image.elf_, &image.ehdr_))
    return failf("{}: not an ELF file", path);
  if (elf_getshdrstrndx(image.elf_, &image.shstrndx_) != 0) image.shstrndx_ = 0;

  size_t phnum = 0;
  if (elf_getphdrnum(image.elf_, &phnum) == 0) {
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr phdr;
      if (!gelf_getphdr(image.elf_, static_cast<int>(i), &phdr)) continue;
      if (phdr.p_type == PT_LOAD) {
        image.segments_.push_back({phdr.p_offset, phdr.p_vaddr, phdr.p_filesz, (phdr.p_flags & PF_X) != 0});
      } else if (phdr.p_type == PT_NOTE && image.build_id_.empty()) {
        Elf_Data* data =
            elf_getdata_rawchunk(image.elf_, static_cast<int64_t>(phdr.p_offset), phdr.p_filesz, ELF_T_NHDR);
        image.build_id_ = notes_build_id(data, phdr.p_align == 8 ? 8 : 4);
      }
    }
  }
  for (Elf_Scn* scn = elf_nextscn(image.elf_, nullptr); scn; scn = elf_nextscn(image.elf_, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr)) continue;
    if (shdr.sh_type == SHT_SYMTAB) image.symtab_ = scn;
    if (shdr.sh_type == SHT_DYNSYM) image.dynsym_ = scn;
    if (shdr.sh_type == SHT_NOTE && shdr.sh_size > 0 && image.build_id_.empty())
      image.build_id_ = notes_build_id(elf_rawdata(scn, nullptr), shdr.sh_addralign == 8 ? 8 : 4);
    const char* name = elf_strptr(image.elf_, image.shstrndx_, shdr.sh_name);
    if (name && std::strcmp(name, ".text") == 0) image.has_code_ = shdr.sh_type != SHT_NOBITS;
  }
  return {};
}

ElfImage::ElfImage(ElfImage&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::move(other.fd_)),
      memory_(std::move(other.memory_)),
      elf_(other.elf_),
      ehdr_(other.ehdr_),
      shstrndx_(other.shstrndx_),
      symtab_(other.symtab_),
      dynsym_(other.dynsym_),
      build_id_(std::move(other.build_id_)),
      has_code_(other.has_code_),
      segments_(std::move(other.segments_)) {
  other.elf_ = nullptr;
}

ElfImage& ElfImage::operator=(ElfImage&& other) noexcept {
  if (this != &other) {
    if (elf_) elf_end(elf_);
    path_ = std::move(other.path_);
    fd_ = std::move(other.fd_);
    memory_ = std::move(other.memory_);
    elf_ = other.elf_;
    ehdr_ = other.ehdr_;
    shstrndx_ = other.shstrndx_;
    symtab_ = other.symtab_;
    dynsym_ = other.dynsym_;
    build_id_ = std::move(other.build_id_);
    has_code_ = other.has_code_;
    segments_ = std::move(other.segments_);
    other.elf_ = nullptr;
  }
  return *this;
}

ElfImage::~ElfImage() {
  if (elf_) elf_end(elf_);
}

Elf_Scn* ElfImage::section_by_name(const char* name, GElf_Shdr* header) const {
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    if (!gelf_getshdr(scn, header)) continue;
    const char* section = elf_strptr(elf_, shstrndx_, header->sh_name);
    if (section && std::strcmp(section, name) == 0) return scn;
  }
  return nullptr;
}

void ElfImage::for_each_symbol(bool dynamic,
                               const std::function<void(const GElf_Sym&, const char*)>& visit) const {
  Elf_Scn* table = dynamic ? dynsym_ : symtab_;
  GElf_Shdr table_header;
  if (!table || !gelf_getshdr(table, &table_header) || table_header.sh_entsize == 0) return;
  Elf_Data* data = elf_getdata(table, nullptr);
  if (!data) return;
  size_t count = table_header.sh_size / table_header.sh_entsize;
  for (size_t i = 0; i < count; ++i) {
    GElf_Sym sym;
    if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
    const char* name = elf_strptr(elf_, table_header.sh_link, sym.st_name);
    if (name) visit(sym, name);
  }
}

std::vector<RawSymbol> ElfImage::functions_named(std::string_view name, bool dynamic) const {
  std::vector<RawSymbol> out;
  for_each_symbol(dynamic, [&](const GElf_Sym& sym, const char* own) {
    int type = GELF_ST_TYPE(sym.st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF) return;
    if (std::strncmp(own, name.data(), name.size()) != 0) return;
    char next = own[name.size()];
    if (next != '\0' && next != '@') return;
    out.push_back({sym.st_value, sym.st_size, static_cast<uint8_t>(GELF_ST_BIND(sym.st_info)), own});
  });
  return out;
}

bool ElfImage::is_gnu_ifunc(uint64_t vaddr) const {
  bool found = false;
  for (bool dynamic : {false, true})
    for_each_symbol(dynamic, [&](const GElf_Sym& sym, const char*) {
      found = found || (sym.st_value == vaddr && GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC);
    });
  return found;
}

std::vector<std::string> ElfImage::defined_symbol_names(bool dynamic) const {
  std::vector<std::string> out;
  for_each_symbol(dynamic, [&](const GElf_Sym& sym, const char* name) {
    int type = GELF_ST_TYPE(sym.st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT && type != STT_NOTYPE) return;
    if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS || !*name) return;
    if (type == STT_NOTYPE) {
      // perf keeps untyped labels that are not local and lie in bytes of the file (not .bss).
      GElf_Shdr section;
      Elf_Scn* scn = elf_getscn(elf_, sym.st_shndx);
      if (GELF_ST_BIND(sym.st_info) == STB_LOCAL || !scn || !gelf_getshdr(scn, &section) ||
          section.sh_type == SHT_NOBITS)
        return;
    }
    out.emplace_back(name);
  });
  return out;
}

std::vector<RawSymbol> ElfImage::symbols(bool dynamic) const {
  std::vector<RawSymbol> out;
  for_each_symbol(dynamic, [&](const GElf_Sym& sym, const char* name) {
    // perf 6.1 skips absolute symbols too (libgcc_s's version names, GCC_4.7.0 at 0).
    if (sym.st_name == 0 || sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS) return;
    int type = GELF_ST_TYPE(sym.st_info);
    bool function = type == STT_FUNC || type == STT_GNU_IFUNC;
    int visibility = GELF_ST_VISIBILITY(sym.st_other);
    bool label = type == STT_NOTYPE && sym.st_shndx != SHN_ABS && visibility != STV_HIDDEN &&
                 visibility != STV_INTERNAL;
    if (!function && type != STT_OBJECT && !label) return;
    if (sym.st_shndx != SHN_ABS && sym.st_shndx < SHN_LORESERVE) {
      GElf_Shdr section;
      Elf_Scn* scn = elf_getscn(elf_, sym.st_shndx);
      if (!scn || !gelf_getshdr(scn, &section)) return;
      if (!(section.sh_flags & SHF_ALLOC)) return;  // not loaded: no sample can land there
      if (label) {
        // Labels count only in text sections, as perf's elf_sec__is_text decides.
        const char* section_name = elf_strptr(elf_, shstrndx_, section.sh_name);
        if (!section_name || !std::strstr(section_name, "text")) return;
      }
    } else if (label) {
      return;
    }
    out.push_back(
        RawSymbol{sym.st_value, sym.st_size, static_cast<uint8_t>(GELF_ST_BIND(sym.st_info)), name});
  });
  return out;
}

std::vector<RawSymbol> ElfImage::plt_symbols() const {
  std::vector<RawSymbol> out;
  GElf_Shdr rel_header, plt_header, dynsym_header;
  Elf_Scn* rel = section_by_name(".rela.plt", &rel_header);
  if (!rel) rel = section_by_name(".rel.plt", &rel_header);
  if (!rel || !dynsym_ || !gelf_getshdr(dynsym_, &dynsym_header)) return out;
  if (rel_header.sh_link != elf_ndxscn(dynsym_) || rel_header.sh_entsize == 0) return out;
  if (!section_by_name(".plt", &plt_header)) return out;
  Elf_Data* rel_data = elf_getdata(rel, nullptr);
  Elf_Data* sym_data = elf_getdata(dynsym_, nullptr);
  if (!rel_data || !sym_data) return out;
  // x86 and most others: the header and each entry are sh_entsize bytes.
  uint64_t header_size = plt_header.sh_entsize, entry_size = plt_header.sh_entsize;
  if (ehdr_.e_machine == EM_AARCH64) header_size = 32, entry_size = 16;
  if (ehdr_.e_machine == EM_ARM) header_size = 20, entry_size = 12;
  if (entry_size == 0) return out;
  uint64_t address = plt_header.sh_addr + header_size;
  size_t count = rel_header.sh_size / rel_header.sh_entsize;
  for (size_t i = 0; i < count; ++i) {
    size_t symbol_index;
    if (rel_header.sh_type == SHT_RELA) {
      GElf_Rela rela;
      if (!gelf_getrela(rel_data, static_cast<int>(i), &rela)) break;
      symbol_index = GELF_R_SYM(rela.r_info);
    } else {
      GElf_Rel plain;
      if (!gelf_getrel(rel_data, static_cast<int>(i), &plain)) break;
      symbol_index = GELF_R_SYM(plain.r_info);
    }
    GElf_Sym sym;
    const char* name = nullptr;
    if (gelf_getsym(sym_data, static_cast<int>(symbol_index), &sym))
      name = elf_strptr(elf_, dynsym_header.sh_link, sym.st_name);
    out.push_back(RawSymbol{address, entry_size, STB_GLOBAL, name ? name : ""});
    address += entry_size;
  }
  return out;
}

std::optional<std::string> ElfImage::debuglink() const {
  GElf_Shdr header;
  Elf_Scn* scn = section_by_name(".gnu_debuglink", &header);
  if (!scn) return std::nullopt;
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (!data || !data->d_buf || data->d_size == 0) return std::nullopt;
  const char* text = static_cast<const char*>(data->d_buf);
  size_t length = strnlen(text, data->d_size);
  if (length == 0 || length == data->d_size) return std::nullopt;
  return std::string(text, length);
}

Result<std::string> elf_build_id(const std::string& path) {
  // The reader's failures past opening (not ELF, no note, cut short) all mean there is none to use.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail_errno(errno, fmt::format("cannot open {}", path));
  ::close(fd);
  auto id = format::read_elf_build_id(path);
  return id ? format::build_id_hex(*id) : std::string();
}

std::string_view ElfImage::code(uint64_t vaddr, uint64_t size) const {
  size_t file_size = 0;
  const char* raw = elf_ != nullptr ? elf_rawfile(elf_, &file_size) : nullptr;
  if (raw == nullptr) return {};
  for (const LoadSegment& segment : segments_) {
    if (vaddr < segment.vaddr || vaddr - segment.vaddr > segment.filesz ||
        size > segment.filesz - (vaddr - segment.vaddr))
      continue;
    uint64_t offset = segment.offset + (vaddr - segment.vaddr);
    if (offset > file_size || size > file_size - offset) return {};
    return {raw + offset, size};
  }
  return {};
}

std::string ElfImage::section_name_at(uint64_t vaddr) const {
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr header;
    if (!gelf_getshdr(scn, &header) || !(header.sh_flags & SHF_ALLOC)) continue;
    if (vaddr < header.sh_addr || vaddr - header.sh_addr >= header.sh_size) continue;
    const char* name = elf_strptr(elf_, shstrndx_, header.sh_name);
    return name ? name : "";
  }
  return "";
}

uint32_t ElfImage::section_index_at(uint64_t vaddr) const {
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr header;
    if (!gelf_getshdr(scn, &header) || !(header.sh_flags & SHF_ALLOC)) continue;
    if (vaddr >= header.sh_addr && vaddr - header.sh_addr < header.sh_size)
      return static_cast<uint32_t>(elf_ndxscn(scn));
  }
  return 0;
}

std::vector<SectionSymbol> ElfImage::section_symbols() const {
  std::vector<SectionSymbol> out;
  for_each_symbol(symtab_ == nullptr, [&](const GElf_Sym& sym, const char* name) {
    uint8_t type = GELF_ST_TYPE(sym.st_info);
    if (*name == '\0' || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || type == STT_SECTION ||
        type == STT_FILE)
      return;
    out.push_back({sym.st_value, sym.st_shndx, type, static_cast<uint8_t>(GELF_ST_BIND(sym.st_info)), name});
  });
  return out;
}

}  // namespace sonde::symbols
