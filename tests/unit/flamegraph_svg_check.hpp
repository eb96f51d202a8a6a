#pragma once
// A strict little XML reader for the tests of sonde's SVG output: it refuses what is not
// well-formed XML (unbalanced or crossed tags, unquoted or duplicate attributes, a bare '&' or
// '<', text after the root) and returns the elements, so tests can check the frames.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::test {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;  // values with entities decoded
  std::string text;                               // the direct text content, decoded
  int parent = -1;
};

struct XmlDocument {
  std::vector<XmlElement> elements;  // document order; elements[0] is the root
  std::string error;                 // empty when well-formed
};

inline bool decode_entities(std::string_view raw, std::string& out) {
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '<') return false;
    if (raw[i] != '&') {
      out += raw[i];
      continue;
    }
    size_t semi = raw.find(';', i);
    if (semi == std::string_view::npos) return false;
    std::string_view entity = raw.substr(i + 1, semi - i - 1);
    if (entity == "amp")
      out += '&';
    else if (entity == "lt")
      out += '<';
    else if (entity == "gt")
      out += '>';
    else if (entity == "quot")
      out += '"';
    else if (entity == "apos")
      out += '\'';
    else if (entity.size() > 1 && entity[0] == '#')
      out += '?';
    else
      return false;
    i = semi;
  }
  return true;
}

inline XmlDocument parse_xml(std::string_view text) {
  XmlDocument doc;
  std::vector<int> open;
  bool root_closed = false;
  size_t i = 0;
  auto fail = [&](std::string message) {
    doc.error = message + " at offset " + std::to_string(i);
    return doc;
  };
  auto is_name = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ':' || c == '.';
  };
  while (i < text.size()) {
    if (text[i] != '<') {
      size_t next = text.find('<', i);
      if (next == std::string_view::npos) next = text.size();
      std::string decoded;
      if (!decode_entities(text.substr(i, next - i), decoded)) return fail("bad character data");
      bool blank = decoded.find_first_not_of(" \t\r\n") == std::string::npos;
      if (open.empty() && !blank) return fail("text outside the root element");
      if (!open.empty()) doc.elements[static_cast<size_t>(open.back())].text += decoded;
      i = next;
      continue;
    }
    if (text.substr(i, 4) == "<!--") {
      size_t end = text.find("-->", i + 4);
      if (end == std::string_view::npos) return fail("unterminated comment");
      i = end + 3;
    } else if (text.substr(i, 9) == "<![CDATA[") {
      size_t end = text.find("]]>", i + 9);
      if (end == std::string_view::npos || open.empty()) return fail("bad CDATA section");
      doc.elements[static_cast<size_t>(open.back())].text += std::string(text.substr(i + 9, end - i - 9));
      i = end + 3;
    } else if (text.substr(i, 2) == "<?" || text.substr(i, 2) == "<!") {
      if (!doc.elements.empty()) return fail("declaration inside the document");
      size_t end = text.find('>', i);
      if (end == std::string_view::npos) return fail("unterminated declaration");
      i = end + 1;
    } else if (text.substr(i, 2) == "</") {
      size_t end = text.find('>', i);
      if (end == std::string_view::npos || open.empty()) return fail("stray end tag");
      std::string name(text.substr(i + 2, end - i - 2));
      if (doc.elements[static_cast<size_t>(open.back())].name != name)
        return fail("end tag </" + name + "> crosses another");
      open.pop_back();
      if (open.empty()) root_closed = true;
      i = end + 1;
    } else {
      if (root_closed) return fail("a second root element");
      size_t j = i + 1;
      while (j < text.size() && is_name(text[j])) ++j;
      XmlElement element;
      element.name = std::string(text.substr(i + 1, j - i - 1));
      if (element.name.empty()) return fail("bad tag name");
      bool self_closing = false;
      while (true) {
        while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
        if (j >= text.size()) return fail("unterminated tag");
        if (text[j] == '>') {
          ++j;
          break;
        }
        if (text.substr(j, 2) == "/>") {
          self_closing = true;
          j += 2;
          break;
        }
        size_t name_start = j;
        while (j < text.size() && is_name(text[j])) ++j;
        std::string attribute(text.substr(name_start, j - name_start));
        if (attribute.empty() || j + 1 >= text.size() || text[j] != '=' ||
            (text[j + 1] != '"' && text[j + 1] != '\''))
          return fail("attribute without a quoted value in <" + element.name + ">");
        char quote = text[j + 1];
        size_t close = text.find(quote, j + 2);
        if (close == std::string_view::npos) return fail("unterminated attribute value");
        std::string value;
        if (!decode_entities(text.substr(j + 2, close - j - 2), value)) return fail("bad attribute value");
        if (!element.attributes.emplace(attribute, value).second)
          return fail("duplicate attribute " + attribute);
        j = close + 1;
      }
      element.parent = open.empty() ? -1 : open.back();
      doc.elements.push_back(std::move(element));
      if (!self_closing) {
        open.push_back(static_cast<int>(doc.elements.size() - 1));
      } else if (open.empty()) {
        root_closed = true;
      }
      i = j;
    }
  }
  if (!open.empty()) return fail("unclosed <" + doc.elements[static_cast<size_t>(open.back())].name + ">");
  if (doc.elements.empty()) return fail("no root element");
  return doc;
}

// The frames of a flame graph: each <g> under <g id="frames"> with its title and rect.
struct SvgFrame {
  std::string title;
  std::string name;  // the title without " (N samples, P%)"
  double samples = 0;
  double x = 0, y = 0, width = 0;
  std::string fill;
};

inline std::vector<SvgFrame> flame_frames(const XmlDocument& doc) {
  std::vector<SvgFrame> frames;
  int frames_group = -1;
  for (size_t i = 0; i < doc.elements.size(); ++i) {
    const auto& element = doc.elements[i];
    auto id = element.attributes.find("id");
    if (element.name == "g" && id != element.attributes.end() && id->second == "frames")
      frames_group = static_cast<int>(i);
    if (element.name != "g" || element.parent != frames_group || frames_group < 0) continue;
    SvgFrame frame;
    for (size_t j = i + 1; j < doc.elements.size() && doc.elements[j].parent == static_cast<int>(i); ++j) {
      const auto& child = doc.elements[j];
      if (child.name == "title") frame.title = child.text;
      if (child.name == "rect") {
        frame.x = std::stod(child.attributes.at("x"));
        frame.y = std::stod(child.attributes.at("y"));
        frame.width = std::stod(child.attributes.at("width"));
        frame.fill = child.attributes.at("fill");
      }
    }
    size_t paren = frame.title.rfind(" (");
    frame.name = frame.title.substr(0, paren);
    std::string count;
    for (size_t k = paren + 2;
         k < frame.title.size() &&
         (std::isdigit(static_cast<unsigned char>(frame.title[k])) || frame.title[k] == ',');
         ++k)
      if (frame.title[k] != ',') count += frame.title[k];
    frame.samples = count.empty() ? 0 : std::stod(count);
    frames.push_back(frame);
  }
  return frames;
}

}  // namespace sonde::test
