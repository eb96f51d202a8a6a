#include "perfdata/file_layout.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>

#include "base/strings.hpp"

namespace sonde::perfdata {

namespace {

// perf before 2012 wrote a header without the feature bitmap.
constexpr uint64_t kHeaderSizeNoFeatures = offsetof(FileHeader, features);

bool section_fits(const FileSection& section, size_t file_size) {
  return section.offset <= file_size && section.size <= file_size - section.offset;
}

// Whether the feature table the header points at (right after the data) lies in the file and
// every section it lists does too.
bool feature_table_fits(Bytes file, const FileHeader& header) {
  uint64_t count = 0;
  for (uint64_t word : header.features) count += static_cast<uint64_t>(std::popcount(word));
  FileSection table{header.data.offset + header.data.size, count * sizeof(FileSection)};
  if (!section_fits(table, file.size())) return false;
  for (uint64_t i = 0; i < count; ++i)
    if (!section_fits(load<FileSection>(file.data() + table.offset + i * sizeof(FileSection)), file.size()))
      return false;
  return true;
}

}  // namespace

Result<FileKind> identify(Bytes head) {
  if (head.size() < sizeof(PipeHeader))
    return failf("file is {} bytes, too short for a perf.data header (16 bytes at least)", head.size());
  auto magic = load<uint64_t>(head.data());
  if (magic == kPerfMagicSwapped)
    return fail(
        "bad magic at offset 0x0: written on a machine of the other byte order, which sonde does not read");
  if (std::memcmp(head.data(), "PERFFILE", 8) == 0)
    return fail("bad magic at offset 0x0: the old PERFFILE format (perf before 3.x) is not supported");
  if (magic != kPerfMagic) return fail("bad magic at offset 0x0: not a perf.data file (expected PERFILE2)");
  auto size = load<uint64_t>(head.data() + 8);
  if (size == sizeof(PipeHeader)) return FileKind::Pipe;
  if (size != sizeof(FileHeader) && size != kHeaderSizeNoFeatures)
    return failf("bad header size {} at offset 0x8 (perf writes 104, or 16 for a pipe)", size);
  return FileKind::File;
}

Result<FileHeader> read_file_header(Bytes file, Diagnostics& diagnostics, bool& data_cut) {
  data_cut = false;
  auto kind = identify(file);
  if (!kind) return tl::unexpected(kind.error());
  FileHeader header;
  auto size = load<uint64_t>(file.data() + 8);
  if (file.size() < size) return failf("file is {} bytes, cut inside the {}-byte header", file.size(), size);
  std::memcpy(&header, file.data(), size);  // a short header leaves the feature bitmap zero
  if (header.attr_size < PERF_ATTR_SIZE_VER0 + sizeof(FileSection) || header.attr_size > 4096)
    return failf("bad attr size {} at offset 0x10 (perf writes {})", header.attr_size, sizeof(FileAttr));
  if (!section_fits(header.attrs, file.size()))
    return failf("attrs section at offset {:#x} of {} bytes runs past the end of the file ({} bytes)",
                 header.attrs.offset, header.attrs.size, file.size());
  if (header.attrs.size % header.attr_size != 0)
    return failf("attrs section size {} at offset 0x20 is not a multiple of the attr size {}",
                 header.attrs.size, header.attr_size);
  if (header.data.offset > file.size())
    return failf("data section offset {:#x} at offset 0x28 is past the end of the file ({} bytes)",
                 header.data.offset, file.size());
  if (header.data.offset < size)
    return failf("data section offset {:#x} at offset 0x28 lies inside the header", header.data.offset);
  bool any_feature =
      std::any_of(std::begin(header.features), std::end(header.features), [](uint64_t w) { return w != 0; });
  if (header.data.size == 0 && file.size() > header.data.offset &&
      (!any_feature || !feature_table_fits(file, header))) {
    // What an interrupted writer leaves (sonde's placeholder header has no feature bits, perf's
    // has them but no table yet): records may still be there, up to the end. With a feature
    // table that fits, the data section is really empty.
    diagnostics.warning(
        "the data size field is 0: the recording was not finished properly; reading records up to the end of "
        "the file");
    header.data.size = file.size() - header.data.offset;
    std::fill(std::begin(header.features), std::end(header.features), 0);
    data_cut = true;
  } else if (header.data.size > file.size() - header.data.offset) {
    diagnostics.warning(fmt::format(
        "the data section ({} bytes at offset {:#x}) is cut at the end of the file: {} bytes of it are "
        "missing",
        header.data.size, header.data.offset, header.data.size - (file.size() - header.data.offset)));
    header.data.size = file.size() - header.data.offset;
    data_cut = true;
    // The feature table lay after the missing bytes.
    std::fill(std::begin(header.features), std::end(header.features), 0);
  }
  return header;
}

Result<void> read_attr_section(Bytes file, const FileHeader& header, AttrTable& attrs) {
  size_t count = header.attrs.size / header.attr_size;
  size_t attr_part = header.attr_size - sizeof(FileSection);
  for (size_t i = 0; i < count; ++i) {
    uint64_t at = header.attrs.offset + i * header.attr_size;
    Bytes entry = file.subspan(at, header.attr_size);
    auto attr_size = load<uint32_t>(entry.data() + offsetof(perf_event_attr, size));
    if (attr_size != 0 && (attr_size < PERF_ATTR_SIZE_VER0 || attr_size > attr_part))
      return failf("attr {} at offset {:#x}: its size field says {} in a {}-byte slot", i, at, attr_size,
                   attr_part);
    auto ids = load<FileSection>(entry.data() + attr_part);
    if (!section_fits(ids, file.size()))
      return failf("attr {} at offset {:#x}: its ids ({} bytes at {:#x}) run past the end of the file", i, at,
                   ids.size, ids.offset);
    if (ids.size % sizeof(uint64_t) != 0)
      return failf("attr {} at offset {:#x}: ids size {} is not a multiple of 8", i, at, ids.size);
    std::vector<uint64_t> id_values(ids.size / sizeof(uint64_t));
    if (!id_values.empty()) std::memcpy(id_values.data(), file.data() + ids.offset, ids.size);
    if (auto r = attrs.add(entry.first(attr_part), id_values); !r)
      return tl::unexpected(r.error().with_context(fmt::format("attr {} at offset {:#x}", i, at)));
  }
  return {};
}

std::map<int, Bytes> read_feature_table(Bytes file, const FileHeader& header, Diagnostics& diagnostics) {
  std::map<int, Bytes> sections;
  int count = 0;
  for (uint64_t word : header.features) count += std::popcount(word);
  if (count == 0) return sections;
  uint64_t table_offset = header.data.offset + header.data.size;
  FileSection table{table_offset, static_cast<uint64_t>(count) * sizeof(FileSection)};
  if (!section_fits(table, file.size())) {
    diagnostics.warning(fmt::format(
        "the feature table at offset {:#x} runs past the end of the file; header features are lost",
        table_offset));
    return sections;
  }
  // perf writes the sections just after the table (a few unused slots between: it sizes the table
  // before dropping empty features): when none starts there, the table is not where the header
  // says (a wrong data size), and what seems to fit is garbage too.
  bool table_found = false;
  for (uint64_t i = 0; i < static_cast<uint64_t>(count) && !table_found; ++i) {
    uint64_t offset = load<FileSection>(file.data() + table_offset + i * sizeof(FileSection)).offset;
    table_found = offset >= table_offset + table.size && offset - table_offset - table.size <= 4096;
  }
  int index = 0;
  std::vector<std::string> outside;
  for (int feature = 0; feature < kFeatureBits; ++feature) {
    if (!header.has_feature(feature)) continue;
    uint64_t entry_at = table_offset + static_cast<uint64_t>(index++) * sizeof(FileSection);
    auto section = load<FileSection>(file.data() + entry_at);
    if (!section_fits(section, file.size())) {
      outside.push_back(
          fmt::format("feature {} ({} bytes at offset {:#x}, table entry at {:#x}) lies outside the file",
                      feature_name(feature), section.size, section.offset, entry_at));
      continue;
    }
    sections[feature] = file.subspan(section.offset, section.size);
  }
  if (!table_found) {
    diagnostics.warningf(
        "the feature table at offset {:#x} does not describe this file (no section starts after it; is the "
        "data size at offset 0x30 right?): header features are ignored",
        table_offset);
    sections.clear();
  } else if (outside.size() == 1) {
    diagnostics.warning(outside.front() + "; ignored");
  } else if (outside.size() > 1) {
    diagnostics.warningf(
        "{} of {} header features lie outside the file (cut short?) and are ignored; the first: {}",
        outside.size(), count, outside.front());
  }
  // A newer perf's: read around, with one note.
  std::vector<std::string> unknown;
  for (const auto& [feature, bytes] : sections)
    if (feature >= HEADER_LAST_FEATURE) unknown.push_back(std::to_string(feature));
  if (!unknown.empty())
    diagnostics.notef("header features sonde does not know were skipped: {}", join(unknown, ", "));
  return sections;
}

}  // namespace sonde::perfdata
