#pragma once
// Text put into an SVG or HTML document: XML's special characters escaped, and what XML cannot
// hold at all — bytes that are not UTF-8, NUL and the other control characters — replaced by
// U+FFFD, so a folded line carrying raw bytes still gives a document browsers open.
#include <string>
#include <string_view>

namespace sonde::output {

enum class XmlQuotes {
  none,     // element text: quotes as they are (flamegraph.pl's titles)
  double_,  // attribute values: " as &quot;
  both,     // " and ' escaped (trace2heatmap.pl)
};

void append_xml_text(std::string& out, std::string_view text, XmlQuotes quotes);
std::string xml_text(std::string_view text, XmlQuotes quotes);

}  // namespace sonde::output
