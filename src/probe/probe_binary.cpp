#include "probe/probe_binary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "session/dso.hpp"

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

  // The symbolizer knows where debug files live; ask it for this one.
  session::DsoTable dsos;
  const session::Dso& dso = dsos.intern(binary->path_, session::DsoKind::user);
  symbols::Symbolizer symbolizer(options);
  std::string debug = symbolizer.debug_path(dso);
  if (!debug.empty() && debug != binary->path_) {
    if (auto debug_image = symbols::ElfImage::open(debug)) {
      binary->debug_image_ = std::make_unique<symbols::ElfImage>(std::move(*debug_image));
      binary->dwarf_ = dwarf_begin_elf(binary->debug_image_->elf(), DWARF_C_READ, nullptr);
    }
  } else if (!debug.empty()) {
    binary->dwarf_ = dwarf_begin_elf(binary->image_->elf(), DWARF_C_READ, nullptr);
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

const std::vector<symbols::RawSymbol>& ProbeBinary::function_symbols() {
  if (function_symbols_) return *function_symbols_;
  const symbols::ElfImage* source =
      debug_image_ && debug_image_->has_symtab() ? debug_image_.get() : image_.get();
  auto symbols = source->symbols(!source->has_symtab());
  std::sort(symbols.begin(), symbols.end(),
            [](const symbols::RawSymbol& a, const symbols::RawSymbol& b) { return a.start < b.start; });
  function_symbols_ = std::move(symbols);
  return *function_symbols_;
}

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
