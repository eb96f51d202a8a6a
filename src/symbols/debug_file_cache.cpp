#include "symbols/debug_file_cache.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "base/file.hpp"
#include "base/unique_fd.hpp"
#include "symbols/kallsyms_cache.hpp"

namespace sonde::symbols {

namespace {

bool has_compressed_sections(Elf* elf) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header;
    if (gelf_getshdr(scn, &header) && (header.sh_flags & SHF_COMPRESSED)) return true;
  }
  return false;
}

// Copies `path` to `temp` and inflates every compressed section of the copy in place.
bool write_uncompressed(const std::string& path, const std::string& temp) {
  std::error_code error;
  std::filesystem::copy_file(path, temp, std::filesystem::copy_options::overwrite_existing, error);
  if (error) return false;
  UniqueFd fd(::open(temp.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd) return false;
  Elf* elf = elf_begin(fd.get(), ELF_C_RDWR, nullptr);
  if (!elf) return false;
  bool ok = true;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn && ok; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header;
    if (gelf_getshdr(scn, &header) && (header.sh_flags & SHF_COMPRESSED)) ok = elf_compress(scn, 0, 0) == 1;
  }
  ok = ok && elf_update(elf, ELF_C_WRITE) >= 0;
  elf_end(elf);
  return ok;
}

}  // namespace

std::string uncompressed_debug_file(const std::string& path, const std::string& build_id) {
  if (build_id.empty()) return path;
  std::string cached = fmt::format("{}/debug/{}.debug", sonde_cache_dir(), build_id);
  if (path_exists(cached)) return cached;
  {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return path;
    elf_version(EV_CURRENT);
    Elf* elf = elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr);
    bool compressed = elf && has_compressed_sections(elf);
    if (elf) elf_end(elf);
    if (!compressed) return path;
  }
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(cached).parent_path(), error);
  if (error) return path;
  // Written beside its final name and renamed, so a reader never maps half a file.
  std::string temp = fmt::format("{}.{}.tmp", cached, ::getpid());
  if (!write_uncompressed(path, temp) || ::rename(temp.c_str(), cached.c_str()) != 0) {
    ::unlink(temp.c_str());
    return path;
  }
  return cached;
}

}  // namespace sonde::symbols
