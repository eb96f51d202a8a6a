#include "kernel/kcore_copy.hpp"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "base/unique_fd.hpp"

namespace sonde::kernel {

namespace {

uint64_t round_down(uint64_t value, uint64_t page) { return value / page * page; }
uint64_t round_up(uint64_t value, uint64_t page) { return round_down(value + page - 1, page); }

// What perf's kcore_copy reads in kallsyms: the function symbols' extremes, the kernel's and the
// modules' apart.
struct TextBounds {
  uint64_t stext = 0, etext = 0;
  uint64_t first_symbol = 0, last_symbol = 0;
  uint64_t first_module_symbol = 0, last_module_symbol = 0;
};

TextBounds text_bounds(std::string_view kallsyms) {
  TextBounds bounds;
  for (std::string_view line : split(kallsyms, '\n')) {
    uint64_t address = 0;
    size_t at = 0;
    for (int digit; at < line.size() && (digit = hex_digit_value(line[at])) >= 0; ++at)
      address = address * 16 + static_cast<uint64_t>(digit);
    if (at == 0 || at + 3 > line.size() || line[at] != ' ' || line[at + 2] != ' ') continue;
    char type = static_cast<char>(line[at + 1] & ~0x20);  // upper case: local or global alike
    if (type != 'T' && type != 'W') continue;
    std::string_view name = line.substr(at + 3);
    // perf's kallsyms parser keeps "\t[module]" in the name: a '[' marks a module's symbol.
    bool module = name.find('[') != std::string_view::npos;
    uint64_t& first = module ? bounds.first_module_symbol : bounds.first_symbol;
    uint64_t& last = module ? bounds.last_module_symbol : bounds.last_symbol;
    if (first == 0 || address < first) first = address;
    if (address > last) last = address;
    if (module) continue;
    if (name == "_stext") bounds.stext = address;
    if (name == "_etext") bounds.etext = address;
  }
  return bounds;
}

// The lowest module address of /proc/modules ("name size refs deps state 0xADDRESS"), 0 for none.
uint64_t first_module_address(std::string_view modules) {
  uint64_t first = 0;
  for (std::string_view line : split(modules, '\n')) {
    size_t x = line.rfind('x');
    if (x == std::string_view::npos) continue;
    uint64_t address = 0;
    for (size_t at = x + 1; at < line.size() && hex_digit_value(line[at]) >= 0; ++at)
      address = address * 16 + static_cast<uint64_t>(hex_digit_value(line[at]));
    if (address != 0 && (first == 0 || address < first)) first = address;
  }
  return first;
}

Result<std::vector<KcoreSegment>> executable_segments(int fd, const std::string& path, Elf64_Ehdr& header) {
  if (pread(fd, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return failf("{} is not an ELF file", path);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_phentsize != sizeof(Elf64_Phdr))
    return failf("{}: only 64-bit kcore files are copied", path);
  std::vector<KcoreSegment> segments;
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr phdr;
    if (pread(fd, &phdr, sizeof phdr, static_cast<off_t>(header.e_phoff + i * sizeof phdr)) !=
        static_cast<ssize_t>(sizeof phdr))
      return failf("{}: program header {} cannot be read", path, i);
    uint64_t size = std::min(phdr.p_memsz, phdr.p_filesz);
    if (phdr.p_type == PT_LOAD && (phdr.p_flags & PF_X) && size != 0)
      segments.push_back({phdr.p_vaddr, size, phdr.p_offset});
  }
  return segments;
}

Result<void> copy_bytes(int from, uint64_t from_offset, int to, uint64_t to_offset, uint64_t length,
                        const std::string& path) {
  std::vector<char> chunk(1 << 20);
  while (length > 0) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(length, chunk.size()));
    ssize_t got = pread(from, chunk.data(), want, static_cast<off_t>(from_offset));
    if (got <= 0)
      return fail_errno(got < 0 ? errno : EIO, fmt::format("reading {} at {:#x}", path, from_offset));
    if (pwrite(to, chunk.data(), static_cast<size_t>(got), static_cast<off_t>(to_offset)) != got)
      return fail_errno(errno, "writing the kcore copy");
    from_offset += static_cast<uint64_t>(got);
    to_offset += static_cast<uint64_t>(got);
    length -= static_cast<uint64_t>(got);
  }
  return {};
}

// A new file with `content`, read-only as perf leaves its copies; fails if it exists.
Result<void> write_new_file(const std::string& path, std::string_view content) {
  UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400));
  if (!fd) return fail_errno(errno, fmt::format("creating {}", path));
  if (!write_all(fd.get(), content)) return fail_errno(errno, fmt::format("writing {}", path));
  return {};
}

Result<void> copy_into(const std::string& proc_dir, const std::string& to_dir, const std::string& kallsyms,
                       const std::string& modules) {
  if (auto written = write_new_file(to_dir + "/kallsyms", kallsyms); !written) return written;
  if (auto written = write_new_file(to_dir + "/modules", modules); !written) return written;
  std::string kcore_path = proc_dir + "/kcore";
  UniqueFd kcore(open(kcore_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!kcore) return fail_errno(errno, fmt::format("opening {}", kcore_path));
  Elf64_Ehdr source;
  auto segments = executable_segments(kcore.get(), kcore_path, source);
  if (!segments) return tl::unexpected(segments.error());
  uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  auto ranges = kcore_ranges(kallsyms, modules, *segments, page);
  if (!ranges) return tl::unexpected(ranges.error());

  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, source.e_ident, EI_NIDENT);
  header.e_type = source.e_type;
  header.e_machine = source.e_machine;
  header.e_version = source.e_version;
  header.e_flags = source.e_flags;
  header.e_phoff = sizeof(Elf64_Ehdr);
  header.e_ehsize = sizeof(Elf64_Ehdr);
  header.e_phentsize = sizeof(Elf64_Phdr);
  header.e_phnum = static_cast<uint16_t>(ranges->size());
  uint64_t data_offset = round_up(sizeof(Elf64_Ehdr) + ranges->size() * sizeof(Elf64_Phdr), page);
  std::string headers(reinterpret_cast<const char*>(&header), sizeof header);
  uint64_t at = data_offset;
  for (const KcoreRange& range : *ranges) {
    Elf64_Phdr phdr{};
    phdr.p_type = PT_LOAD;
    phdr.p_flags = PF_R | PF_W | PF_X;
    phdr.p_offset = at;
    phdr.p_vaddr = range.address;
    phdr.p_filesz = phdr.p_memsz = range.length;
    phdr.p_align = page;
    headers.append(reinterpret_cast<const char*>(&phdr), sizeof phdr);
    at += range.length;
  }
  std::string copy_path = to_dir + "/kcore";
  UniqueFd copy(open(copy_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400));
  if (!copy) return fail_errno(errno, fmt::format("creating {}", copy_path));
  if (!write_all(copy.get(), headers)) return fail_errno(errno, fmt::format("writing {}", copy_path));
  at = data_offset;
  for (const KcoreRange& range : *ranges) {
    if (auto copied = copy_bytes(kcore.get(), range.kcore_offset, copy.get(), at, range.length, kcore_path);
        !copied)
      return copied;
    at += range.length;
  }
  // A module loaded or unloaded during the copy changes kallsyms: the copy no longer matches it.
  auto again = read_file(proc_dir + "/kallsyms");
  if (!again) return tl::unexpected(again.error());
  if (*again != kallsyms)
    return fail("kallsyms changed while kcore was copied (a module loaded?); record again");
  return {};
}

}  // namespace

bool kcore_readable(const std::string& proc_dir) {
  UniqueFd fd(open((proc_dir + "/kcore").c_str(), O_RDONLY | O_CLOEXEC));
  return static_cast<bool>(fd);
}

Result<std::vector<KcoreRange>> kcore_ranges(std::string_view kallsyms, std::string_view modules,
                                             const std::vector<KcoreSegment>& segments, uint64_t page_size) {
  TextBounds bounds = text_bounds(kallsyms);
  uint64_t stext = round_down(bounds.stext ? bounds.stext : bounds.first_symbol, page_size);
  uint64_t etext =
      bounds.etext ? round_up(bounds.etext, page_size) : round_up(bounds.last_symbol, page_size) + page_size;
  uint64_t first_module = first_module_address(modules);
  if (bounds.first_module_symbol && (!first_module || bounds.first_module_symbol < first_module))
    first_module = bounds.first_module_symbol;
  first_module = round_down(first_module, page_size);
  uint64_t modules_end =
      bounds.last_module_symbol ? round_up(bounds.last_module_symbol, page_size) + page_size : 0;
  if (!stext || !etext || bounds.last_symbol == 0)
    return fail("kallsyms names no kernel text (are its addresses hidden? kptr_restrict)");
  if (first_module && !modules_end)
    return fail("kallsyms names no module text, and /proc/modules lists modules");
  std::vector<KcoreRange> ranges;
  // A range is kept from the segment it starts in, cut at that segment's end.
  auto keep = [&](const KcoreSegment& segment, uint64_t start, uint64_t end) {
    uint64_t segment_end = segment.vaddr + segment.size;
    if (start < segment.vaddr || start >= segment_end) return;
    ranges.push_back({start, std::min(end, segment_end) - start, segment.offset + (start - segment.vaddr)});
  };
  for (const KcoreSegment& segment : segments) {
    keep(segment, stext, etext);
    if (first_module) keep(segment, first_module, modules_end);
  }
  if (ranges.empty()) return fail("kcore has no executable segment holding the kernel's text");
  return ranges;
}

Result<void> copy_kcore(const std::string& proc_dir, const std::string& to_dir) {
  auto kallsyms = read_file(proc_dir + "/kallsyms");
  if (!kallsyms) return tl::unexpected(kallsyms.error());
  // A kernel built without modules has no /proc/modules (perf fails there): an empty list.
  std::string modules_path = proc_dir + "/modules";
  auto modules = path_exists(modules_path) ? read_file(modules_path) : Result<std::string>(std::string());
  if (!modules) return tl::unexpected(modules.error());
  auto copied = copy_into(proc_dir, to_dir, *kallsyms, *modules);
  if (!copied)
    for (const char* name : {"kcore", "kallsyms", "modules"}) unlink((to_dir + "/" + name).c_str());
  return copied;
}

}  // namespace sonde::kernel
