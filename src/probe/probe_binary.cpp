#include "probe/probe_binary.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "base/file.hpp"
#include "symbols/debug_file_cache.hpp"
#include "symbols/debug_files.hpp"
#include "symbols/debuginfod_client.hpp"

namespace sonde::probe {

Result<std::unique_ptr<ProbeBinary>> ProbeBinary::open(const std::string& path,
                                                       const symbols::SymbolizerOptions& options) {
  char resolved[PATH_MAX];
  if (!::realpath(path.c_str(), resolved))
    return failf("{}: {}; give the binary's path with -x (or a library's full path)", path,
                 errno_text(errno));
  auto binary = std::unique_ptr<ProbeBinary>(new ProbeBinary());
  binary->path_ = resolved;
  auto image = symbols::ElfImage::open(binary->path_);
  if (!image) return tl::unexpected(image.error());
  binary->image_ = std::make_unique<symbols::ElfImage>(std::move(*image));
  binary->build_id_ = binary->image_->build_id();

  // The first of perf's places that holds this build's DWARF; debuginfod last, when configured.
  std::vector<std::string> candidates =
      symbols::debug_file_candidates(binary->path_, binary->build_id_, options, binary->image_.get());
  std::string debug;
  for (const std::string& candidate : candidates) {
    if (candidate.empty() || !path_exists(candidate) || is_directory(candidate)) continue;
    if (candidate == binary->path_) {
      binary->dwarf_ = dwarf_begin_elf(binary->image_->elf(), DWARF_C_READ, nullptr);
    } else {
      auto debug_image = symbols::ElfImage::open(candidate);
      if (!debug_image || (!binary->build_id_.empty() && debug_image->build_id() != binary->build_id_))
        continue;
      // Compressed DWARF (libc6-dbg's) is read from sonde's inflated copy.
      std::string inflated = symbols::uncompressed_debug_file(candidate, binary->build_id_);
      if (inflated != candidate)
        if (auto copy = symbols::ElfImage::open(inflated); copy && copy->build_id() == binary->build_id_)
          debug_image = std::move(copy);
      auto owned = std::make_unique<symbols::ElfImage>(std::move(*debug_image));
      binary->dwarf_ = dwarf_begin_elf(owned->elf(), DWARF_C_READ, nullptr);
      if (binary->dwarf_) binary->debug_image_ = std::move(owned);
    }
    if (binary->dwarf_) {
      debug = candidate;
      break;
    }
  }
  if (!binary->dwarf_ && options.debuginfod && !binary->build_id_.empty()) {
    std::string fetched = symbols::debuginfod_debuginfo(binary->build_id_);
    if (!fetched.empty())
      if (auto debug_image = symbols::ElfImage::open(fetched)) {
        auto owned = std::make_unique<symbols::ElfImage>(std::move(*debug_image));
        binary->dwarf_ = dwarf_begin_elf(owned->elf(), DWARF_C_READ, nullptr);
        if (binary->dwarf_) {
          binary->debug_image_ = std::move(owned);
          debug = fetched;
        }
      }
  }
  if (binary->dwarf_) binary->debug_path_ = debug;
  return binary;
}

ProbeBinary::~ProbeBinary() {
  if (dwarf_) dwarf_end(dwarf_);
}

std::string ProbeBinary::missing_debug_info_hint() const {
  std::string where = build_id_.empty() ? fmt::format("/usr/lib/debug{}.debug", path_)
                                        : fmt::format("/usr/lib/debug/.build-id/{}/{}.debug",
                                                      build_id_.substr(0, 2), build_id_.substr(2));
  return fmt::format(
      "{} has no debug information ({} not found): install its -dbg/-dbgsym package, or set DEBUGINFOD_URLS "
      "to fetch it; entry and %return probes with %REG or $argN arguments work without it",
      path_, where);
}

std::optional<uint64_t> ProbeBinary::file_offset(uint64_t vaddr) const {
  for (const symbols::LoadSegment& segment : image_->load_segments())
    if (vaddr >= segment.vaddr && vaddr < segment.vaddr + segment.filesz)
      return vaddr - segment.vaddr + segment.offset;
  return std::nullopt;
}

std::optional<uint64_t> ProbeBinary::vaddr_of_offset(uint64_t offset) const {
  for (const symbols::LoadSegment& segment : image_->load_segments())
    if (offset >= segment.offset && offset < segment.offset + segment.filesz)
      return offset - segment.offset + segment.vaddr;
  return std::nullopt;
}

const symbols::ElfImage& ProbeBinary::symbol_image() const {
  return debug_image_ && debug_image_->has_symtab() ? *debug_image_ : *image_;
}

const std::vector<symbols::RawSymbol>& ProbeBinary::function_symbols() {
  if (function_symbols_) return *function_symbols_;
  const symbols::ElfImage* source = &symbol_image();
  auto symbols = source->symbols(!source->has_symtab());
  std::sort(symbols.begin(), symbols.end(),
            [](const symbols::RawSymbol& a, const symbols::RawSymbol& b) { return a.start < b.start; });
  function_symbols_ = std::move(symbols);
  return *function_symbols_;
}

std::vector<uint64_t> ProbeBinary::global_symbol_addresses(std::string_view name) {
  const symbols::ElfImage* source = &symbol_image();
  std::vector<uint64_t> addresses;
  for (const symbols::RawSymbol& symbol : source->functions_named(name, !source->has_symtab())) {
    if (symbol.binding == STB_LOCAL) return {};
    addresses.push_back(symbol.start);
  }
  return addresses;
}

bool ProbeBinary::is_gnu_ifunc(uint64_t vaddr) const { return symbol_image().is_gnu_ifunc(vaddr); }

const symbols::RawSymbol* ProbeBinary::symbol_at(uint64_t vaddr) {
  const auto& symbols = function_symbols();
  auto it = std::upper_bound(symbols.begin(), symbols.end(), vaddr,
                             [](uint64_t value, const symbols::RawSymbol& s) { return value < s.start; });
  while (it != symbols.begin()) {
    --it;
    if (vaddr < it->start + std::max<uint64_t>(it->size, 1)) return &*it;
    if (it->size != 0) break;
  }
  return nullptr;
}

}  // namespace sonde::probe
