// Text put into SVG and HTML documents: escaped, and kept well-formed XML whatever the bytes.
#include "output/svg/xml_text.hpp"

#include <gtest/gtest.h>

namespace sonde::output {
namespace {

TEST(XmlText, EscapesAsTheDocumentsNeed) {
  EXPECT_EQ(xml_text("a<b>&\"'", XmlQuotes::none), "a&lt;b&gt;&amp;\"'");
  EXPECT_EQ(xml_text("a<b>&\"'", XmlQuotes::double_), "a&lt;b&gt;&amp;&quot;'");
  EXPECT_EQ(xml_text("a<b>&\"'", XmlQuotes::both), "a&lt;b&gt;&amp;&quot;&apos;");
}

TEST(XmlText, KeepsUtf8AndReplacesWhatXmlCannotHold) {
  EXPECT_EQ(xml_text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", XmlQuotes::none),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5");
  EXPECT_EQ(xml_text("caf\xe9", XmlQuotes::none), "caf\xef\xbf\xbd");  // Latin-1
  EXPECT_EQ(xml_text(std::string_view("a\0b", 3), XmlQuotes::none),
            "a\xef\xbf\xbd"
            "b");  // NUL
  EXPECT_EQ(xml_text("\x01\t\n", XmlQuotes::none), "\xef\xbf\xbd\t\n");
  EXPECT_EQ(xml_text("\xc0\xaf", XmlQuotes::none), "\xef\xbf\xbd\xef\xbf\xbd");                  // overlong
  EXPECT_EQ(xml_text("\xed\xa0\x80", XmlQuotes::none), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // surrogate
  EXPECT_EQ(xml_text("\xe2\x82", XmlQuotes::none), "\xef\xbf\xbd\xef\xbf\xbd");                  // cut short
}

}  // namespace
}  // namespace sonde::output
