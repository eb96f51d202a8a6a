#include "output/svg/xml_text.hpp"

namespace sonde::output {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the valid UTF-8 sequence starting `text`, 0 when it is not one (a stray
// continuation byte, a truncated or overlong sequence, a surrogate, past U+10FFFF).
size_t utf8_sequence(std::string_view text) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(0);
  size_t length = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 && lead <= 0xDF ? 2 : 0;
  if (lead >= 0xF5 || length == 0 || text.size() < length) return 0;
  for (size_t i = 1; i < length; ++i)
    if ((byte(i) & 0xC0) != 0x80) return 0;
  if (lead == 0xE0 && byte(1) < 0xA0) return 0;   // overlong
  if (lead == 0xED && byte(1) >= 0xA0) return 0;  // a surrogate
  if (lead == 0xF0 && byte(1) < 0x90) return 0;   // overlong
  if (lead == 0xF4 && byte(1) >= 0x90) return 0;  // past U+10FFFF
  return length;
}

}  // namespace

void append_xml_text(std::string& out, std::string_view text, XmlQuotes quotes) {
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80) {
      size_t length = utf8_sequence(text.substr(i));
      if (length == 0) {
        out += kReplacement;
        ++i;
      } else {
        out += text.substr(i, length);
        i += length;
      }
      continue;
    }
    ++i;
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += quotes == XmlQuotes::none ? "\"" : "&quot;";
        break;
      case '\'':
        out += quotes == XmlQuotes::both ? "&apos;" : "'";
        break;
      default:
        if (byte < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += kReplacement;  // XML 1.0 holds no other control character
        else
          out += c;
    }
  }
}

std::string xml_text(std::string_view text, XmlQuotes quotes) {
  std::string out;
  append_xml_text(out, text, quotes);
  return out;
}

}  // namespace sonde::output
