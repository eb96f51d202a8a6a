// libFuzzer target for folded stacks (src/analysis/stacks/folded.cpp), what `sonde flamegraph`
// reads from stackcollapse output: one input is the text. Its lines go into a flame graph tree
// (as a flame graph, reversed, and as a flame chart), which is rendered as the SVG and the HTML
// page; the input's two halves go through difffolded.pl's merge and into a differential graph.
// Whatever bytes the frames hold, the SVG must stay XML: valid UTF-8, no control characters
// but tab and newline, no NUL.
#include <cstdint>
#include <string>

#include "analysis/flame/flame_build.hpp"
#include "analysis/flame/flame_tree.hpp"
#include "analysis/stacks/folded.hpp"
#include "fuzz_input.hpp"
#include "output/flame/flamegraph_svg.hpp"

using namespace sonde;

namespace {

// Valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF) without a control
// character XML 1.0 forbids.
bool is_xml_text(std::string_view text) {
  size_t at = 0;
  while (at < text.size()) {
    auto byte = static_cast<unsigned char>(text[at]);
    if (byte < 0x80) {
      if (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') return false;
      ++at;
      continue;
    }
    int length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc2 ? 2 : 0;
    if (length == 0 || byte > 0xf4 || at + length > text.size()) return false;
    uint32_t code = byte & (0x7f >> length);
    for (int i = 1; i < length; ++i) {
      auto next = static_cast<unsigned char>(text[at + i]);
      if ((next & 0xc0) != 0x80) return false;
      code = (code << 6) | (next & 0x3f);
    }
    if ((length == 3 && (code < 0x800 || (code >= 0xd800 && code <= 0xdfff))) ||
        (length == 4 && (code < 0x10000 || code > 0x10ffff)))
      return false;
    at += length;
  }
  return true;
}

void render(const analysis::FlameTree& tree, bool html) {
  output::FlameGraphStyle style;
  std::string page =
      html ? output::render_flamegraph_html(tree, style) : output::render_flamegraph_svg(tree, style);
  fuzz::require(is_xml_text(page), "folded_stacks", "the rendered graph is not XML text");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  int variant = 0;
  for (analysis::FlameTreeOptions options :
       {analysis::FlameTreeOptions{}, analysis::FlameTreeOptions{false, true, true},
        analysis::FlameTreeOptions{true, false, false}}) {
    analysis::FlameTree tree(options);
    analysis::add_folded_to_flame_tree(text, tree);
    tree.finish();
    render(tree, variant++ == 1);
  }
  size_t half = text.size() / 2;
  for (bool normalize : {false, true}) {
    std::string diff = analysis::diff_folded(text.substr(0, half), text.substr(half), {normalize, normalize});
    analysis::FlameTree tree;
    analysis::add_diff_to_flame_tree(diff, tree);
    tree.finish();
    render(tree, false);
  }
  return 0;
}
