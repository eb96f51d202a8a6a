#include "format/build_ids.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/file.hpp"
#include "kernel/kallsyms.hpp"

namespace sonde::format {

namespace {

// Build-id notes sit in small segments; anything bigger than this is not worth reading whole.
constexpr uint64_t kMaxNotesSize = 1 << 20;
constexpr uint64_t kMaxHeadersSize = 1 << 20;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

bool pread_exact(int fd, void* buffer, size_t size, uint64_t offset) {
  auto* out = static_cast<char*>(buffer);
  while (size > 0) {
    ssize_t n = ::pread(fd, out, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

std::optional<BuildId> notes_at(int fd, uint64_t offset, uint64_t size, uint64_t align) {
  if (size == 0 || size > kMaxNotesSize) return std::nullopt;
  std::vector<uint8_t> notes(size);
  if (!pread_exact(fd, notes.data(), notes.size(), offset)) return std::nullopt;
  return find_gnu_build_id(notes, align == 8 ? 8 : 4);
}

// ELF32 and ELF64 differ only in the header types; the search is the same.
template <typename Ehdr, typename Phdr, typename Shdr>
Result<BuildId> build_id_of_elf(int fd, const std::string& path) {
  Ehdr ehdr;
  if (!pread_exact(fd, &ehdr, sizeof ehdr, 0)) return failf("{}: truncated ELF header", path);
  // Note segments first: they are what a loader maps, and every linked binary has them.
  if (ehdr.e_phoff && ehdr.e_phentsize == sizeof(Phdr) && ehdr.e_phnum != PN_XNUM) {
    std::vector<Phdr> phdrs(ehdr.e_phnum);
    if (phdrs.size() * sizeof(Phdr) <= kMaxHeadersSize &&
        pread_exact(fd, phdrs.data(), phdrs.size() * sizeof(Phdr), ehdr.e_phoff)) {
      for (const auto& ph : phdrs)
        if (ph.p_type == PT_NOTE)
          if (auto id = notes_at(fd, ph.p_offset, ph.p_filesz, ph.p_align)) return *id;
    }
  }
  // Relocatable objects (kernel modules) have no segments: look at the note sections.
  if (ehdr.e_shoff && ehdr.e_shentsize == sizeof(Shdr) && ehdr.e_shnum > 0) {
    std::vector<Shdr> shdrs(ehdr.e_shnum);
    if (shdrs.size() * sizeof(Shdr) <= kMaxHeadersSize &&
        pread_exact(fd, shdrs.data(), shdrs.size() * sizeof(Shdr), ehdr.e_shoff)) {
      for (const auto& sh : shdrs)
        if (sh.sh_type == SHT_NOTE)
          if (auto id = notes_at(fd, sh.sh_offset, sh.sh_size, sh.sh_addralign)) return *id;
    }
  }
  return failf("{}: no GNU build-id note", path);
}

uint32_t load_u32(const uint8_t* p) {
  uint32_t value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

bool is_pseudo_file(const std::string& name) {
  return name.empty() || name.front() == '[' || name.rfind("//", 0) == 0 ||
         (name.size() > 10 && name.compare(name.size() - 10, 10, " (deleted)") == 0);
}

}  // namespace

std::optional<BuildId> find_gnu_build_id(std::span<const uint8_t> notes, size_t align) {
  auto up = [align](uint64_t n) { return (n + align - 1) & ~uint64_t(align - 1); };
  uint64_t offset = 0;
  while (offset + 12 <= notes.size()) {
    uint32_t namesz = load_u32(&notes[offset]);
    uint32_t descsz = load_u32(&notes[offset + 4]);
    uint32_t type = load_u32(&notes[offset + 8]);
    uint64_t name_at = offset + 12;
    uint64_t desc_at = name_at + up(namesz);
    if (desc_at + descsz > notes.size()) break;
    if (type == NT_GNU_BUILD_ID && namesz == 4 && std::memcmp(&notes[name_at], "GNU", 4) == 0 && descsz > 0)
      return BuildId(notes.begin() + static_cast<ptrdiff_t>(desc_at),
                     notes.begin() + static_cast<ptrdiff_t>(desc_at + descsz));
    offset = desc_at + up(descsz);
  }
  return std::nullopt;
}

Result<BuildId> read_elf_build_id(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return failf("cannot open {}: {}", path, errno_text(errno));
  unsigned char ident[EI_NIDENT];
  if (!pread_exact(fd.get(), ident, sizeof ident, 0) || std::memcmp(ident, ELFMAG, SELFMAG) != 0)
    return failf("{}: not an ELF file", path);
  const unsigned char native = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
  if (ident[EI_DATA] != native) return failf("{}: ELF of the other byte order", path);
  if (ident[EI_CLASS] == ELFCLASS64)
    return build_id_of_elf<Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr>(fd.get(), path);
  if (ident[EI_CLASS] == ELFCLASS32)
    return build_id_of_elf<Elf32_Ehdr, Elf32_Phdr, Elf32_Shdr>(fd.get(), path);
  return failf("{}: unknown ELF class {}", path, ident[EI_CLASS]);
}

Result<BuildId> read_kernel_build_id(const std::string& notes_path) {
  auto notes = read_file(notes_path);
  if (!notes) return tl::unexpected(notes.error());
  auto id = find_gnu_build_id({reinterpret_cast<const uint8_t*>(notes->data()), notes->size()});
  if (!id) return failf("{}: no GNU build-id note", notes_path);
  return *id;
}

Result<BuildId> read_module_build_id(const std::string& module_name) {
  return read_kernel_build_id("/sys/module/" + module_name + "/notes/.note.gnu.build-id");
}

std::string build_id_hex(std::span<const uint8_t> id) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(id.size() * 2);
  for (uint8_t byte : id) {
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 15];
  }
  return hex;
}

std::optional<BuildId> BuildIdCache::lookup(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  Key key{st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec};
  auto found = by_identity_.find(key);
  if (found != by_identity_.end()) return found->second;
  ++reads_;
  auto id = read_elf_build_id(path);
  return by_identity_[key] = id ? std::optional<BuildId>(std::move(*id)) : std::nullopt;
}

std::vector<perfdata::BuildIdEntry> BuildIdCache::entries(std::span<const DsoRef> dsos) {
  std::vector<perfdata::BuildIdEntry> out;
  for (const auto& dso : dsos) {
    std::optional<BuildId> id;
    if (dso.kernel && dso.name.rfind("[kernel.kallsyms]", 0) == 0) {
      if (!kernel_) {
        auto kernel = read_kernel_build_id();
        kernel_ = kernel ? std::optional<BuildId>(std::move(*kernel)) : std::nullopt;
      }
      id = *kernel_;
    } else if (dso.kernel) {
      // A loaded module's notes are in sysfs whatever the file's compression.
      if (auto from_sysfs = read_module_build_id(kernel::module_name_from_path(dso.name)))
        id = std::move(*from_sysfs);
      else if (!is_pseudo_file(dso.name))
        id = lookup(dso.name);
    } else if (!is_pseudo_file(dso.name)) {
      id = lookup(dso.name);
    }
    if (!id) continue;
    uint16_t cpumode = dso.kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
    out.push_back({-1, cpumode, std::move(*id), dso.name});
  }
  return out;
}

}  // namespace sonde::format
