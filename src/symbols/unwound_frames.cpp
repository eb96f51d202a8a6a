#include "symbols/unwound_frames.hpp"

#include <fmt/format.h>

#include "base/strings.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::symbols {

std::vector<UnwoundFrame> unwound_frames(Symbolizer& symbolizer, const session::Dso& dso, uint64_t addr) {
  std::vector<UnwoundFrame> frames;
  const Symbol* symbol = symbolizer.find(dso, addr);
  if (symbol == nullptr) return frames;
  auto found = symbolizer.inline_frames(dso, addr);
  // Nothing inlined: perf (through addr2line) still names the frame by its DWARF function.
  if (found.empty()) {
    std::string name = symbolizer.function_name(dso, addr);
    if (!name.empty()) found.push_back({name, "", 0});
  }
  for (size_t i = 0; i < found.size(); ++i) {
    UnwoundFrame frame;
    frame.function = found[i].function;
    if (!found[i].file.empty())
      frame.srcline = fmt::format("{}:{}", path_basename(found[i].file), found[i].line);
    frame.inlined = !(i + 1 == found.size() && frame.function == symbol->name);
    frames.push_back(std::move(frame));
  }
  return frames;
}

}  // namespace sonde::symbols
