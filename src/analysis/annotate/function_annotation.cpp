#include "analysis/annotate/function_annotation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <unordered_map>

#include "analysis/annotate/objdump_listing.hpp"
#include "symbols/disassembler.hpp"
#include "symbols/dwarf_info.hpp"
#include "symbols/elf_image.hpp"

namespace sonde::analysis {

namespace {

constexpr uint32_t kMaxSourceLines = 600;  // a listing, not the whole file

// The lines [first, last] of a text file; fewer (or none) when it is shorter or unreadable.
std::vector<std::string> read_lines(const std::string& path, uint32_t first, uint32_t last) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  std::string text;
  for (uint32_t number = 1; number <= last && std::getline(in, text); ++number)
    if (number >= first) lines.push_back(text);
  return lines;
}

}  // namespace

Result<FunctionAnnotation> annotate_function(const std::string& elf_path, uint64_t start,
                                             const std::map<uint64_t, double>& weights) {
  auto image = symbols::ElfImage::open(elf_path);
  if (!image) return tl::unexpected(image.error());
  FunctionAnnotation annotation;
  annotation.start = start;
  for (bool dynamic : {false, true}) {
    for (const symbols::RawSymbol& symbol : image->symbols(dynamic)) {
      if (symbol.start != start || symbol.size == 0) continue;
      annotation.name = symbol.name;
      annotation.size = symbol.size;
      break;
    }
    if (annotation.size != 0) break;
  }
  if (annotation.size == 0) return failf("'{}' has no function symbol at {:#x}", elf_path, start);
  if (annotation.size > kMaxFunctionSize)
    return failf("'{}': {} claims {} bytes of code; not disassembled", elf_path, annotation.name,
                 annotation.size);
  std::string_view bytes = image->code(start, annotation.size);
  if (bytes.empty()) return failf("'{}' holds no code for {} at {:#x}", elf_path, annotation.name, start);
  auto instructions = symbols::disassemble(bytes, start, image->machine());
  if (!instructions) return tl::unexpected(instructions.error());

  auto dwarf = symbols::DwarfInfo::open(image->elf());
  AddressNamer namer = objdump_namer(*image, nullptr);
  std::unordered_map<std::string, int32_t> file_ids;
  std::vector<double> file_weights;
  for (const symbols::Instruction& instruction : *instructions) {
    AnnotatedInstruction& out = annotation.instructions.emplace_back();
    out.address = instruction.address;
    out.text = objdump_text(instruction, namer);
    // A sample's ip anywhere in the instruction counts for it.
    for (auto it = weights.lower_bound(instruction.address);
         it != weights.end() && it->first < instruction.address + instruction.size; ++it)
      out.weight += it->second;
    annotation.total += out.weight;
    if (!dwarf) continue;
    auto line = dwarf->line(instruction.address);
    if (!line || line->file.empty()) continue;
    auto [known, fresh] = file_ids.try_emplace(line->file, static_cast<int32_t>(annotation.files.size()));
    if (fresh) {
      annotation.files.push_back(line->file);
      file_weights.push_back(0);
    }
    out.file = known->second;
    out.line = line->line;
    file_weights[static_cast<size_t>(out.file)] += out.weight;
  }
  if (annotation.files.empty()) return annotation;

  // The source shown: the file with the most weight (the first one when none has any).
  auto heaviest_file = std::max_element(file_weights.begin(), file_weights.end());
  annotation.main_file = *heaviest_file > 0 ? static_cast<int32_t>(heaviest_file - file_weights.begin())
                         : annotation.instructions.front().file >= 0 ? annotation.instructions.front().file
                                                                     : 0;
  uint64_t first = UINT32_MAX, last = 0, heaviest = 0;
  std::map<uint32_t, double> line_weights;
  for (const AnnotatedInstruction& instruction : annotation.instructions) {
    if (instruction.file != annotation.main_file || instruction.line == 0) continue;
    first = std::min<uint64_t>(first, instruction.line);
    last = std::max<uint64_t>(last, instruction.line);
    double& weight = line_weights[instruction.line];
    weight += instruction.weight;
    if (heaviest == 0 || weight > line_weights[static_cast<uint32_t>(heaviest)]) heaviest = instruction.line;
  }
  if (first > last) return annotation;
  // A long span (an inline helper defined far away in the same file) keeps the hottest line in
  // view: the window starts up to half a window before it.
  if (last - first >= kMaxSourceLines) {
    first = std::max(first, heaviest > kMaxSourceLines / 2 ? heaviest - kMaxSourceLines / 2 : 0);
    last = std::min(last, first + kMaxSourceLines - 1);
  }
  auto text = read_lines(annotation.files[static_cast<size_t>(annotation.main_file)],
                         static_cast<uint32_t>(first), static_cast<uint32_t>(last));
  for (uint64_t number = first; number <= last; ++number) {
    AnnotatedSourceLine& line = annotation.source.emplace_back();
    line.line = static_cast<uint32_t>(number);
    if (number - first < text.size()) line.text = text[number - first];
    auto weight = line_weights.find(static_cast<uint32_t>(number));
    if (weight != line_weights.end()) line.weight = weight->second;
  }
  return annotation;
}

}  // namespace sonde::analysis
