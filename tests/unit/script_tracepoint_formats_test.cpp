// The TRACING_DATA blob into libtraceevent: a hand-made blob in perf's 0.6 layout, one event.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "session/tracepoint_formats.hpp"

using namespace sonde;

namespace {

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

const char* kFormat =
    "name: demo_event\n"
    "ID: 42\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:char name[8];\toffset:12;\tsize:8;\tsigned:0;\n"
    "\n"
    "print fmt: \"value=%d name=%s\", REC->value, REC->name\n";

std::string blob(bool cut_after_events) {
  std::string out = "\x17\x08\x44tracing";
  out += std::string("0.6") + '\0';
  out += '\0';  // little endian
  out += static_cast<char>(8);
  put<uint32_t>(out, 4096);
  out += std::string("header_page") + '\0';
  put<uint64_t>(out, 0);
  out += std::string("header_event") + '\0';
  put<uint64_t>(out, 0);
  put<uint32_t>(out, 0);  // no ftrace formats
  put<uint32_t>(out, 1);  // one system
  out += std::string("demo") + '\0';
  put<uint32_t>(out, 1);
  put<uint64_t>(out, std::strlen(kFormat));
  out += kFormat;
  if (cut_after_events) return out;
  put<uint32_t>(out, 0);  // kallsyms
  put<uint32_t>(out, 0);  // printk
  put<uint64_t>(out, 0);  // cmdlines
  return out;
}

perfdata::Bytes bytes_of(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

}  // namespace

TEST(TracepointFormats, FormatsAPayloadByItsPrintFmt) {
  for (bool cut : {false, true}) {
    std::string data = blob(cut);
    auto formats = session::TracepointFormats::parse(bytes_of(data));
    ASSERT_TRUE(formats) << formats.error().message;
    ASSERT_NE(formats->find(42), nullptr);
    EXPECT_EQ(formats->find(43), nullptr);
    uint8_t raw[20] = {};
    uint16_t type = 42;
    int32_t value = -7;
    std::memcpy(raw, &type, 2);
    std::memcpy(raw + 8, &value, 4);
    std::memcpy(raw + 12, "sonde", 6);
    std::string text;
    formats->append_info(0, perfdata::Bytes(raw, sizeof raw), text);
    EXPECT_EQ(text, "value=-7 name=sonde");
  }
}

TEST(TracepointFormats, RejectsWhatIsNotTracingData) {
  std::string junk = "not tracing data at all";
  EXPECT_FALSE(session::TracepointFormats::parse(bytes_of(junk)));
  std::string data = blob(false);
  EXPECT_FALSE(session::TracepointFormats::parse(bytes_of(data.substr(0, 40))));
}
